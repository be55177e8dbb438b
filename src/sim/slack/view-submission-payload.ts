/**
 * What Slack sends when a user fills in a modal and presses its submit button: a `view_submission` payload whose
 * `view.state.values` holds, per input block and action_id, the element's value in its type's shape.
 */

type Json = Record<string, unknown>;

/** What the user typed or chose, keyed by the input's block_id, action_id or label text. */
export type ModalInputValues = Record<string, string | string[]>;

export interface ViewState {
  values: Record<string, Record<string, Json>>;
  /** label → what was entered, for the conversation view. */
  display: Record<string, string>;
}

/**
 * Fills the modal's input blocks from `values`. Throws when a key matches no input or a required input is left
 * empty: Slack's client would not let the user submit, so the test is wrong, not the bot.
 */
export function buildViewState(view: Json, values: ModalInputValues): ViewState {
  const state: ViewState = { values: {}, display: {} };
  const used = new Set<string>();
  for (const raw of Array.isArray(view.blocks) ? view.blocks : []) {
    const block = asObject(raw);
    if (block.type !== 'input') continue;
    const element = asObject(block.element);
    const blockId = String(block.block_id ?? '');
    const actionId = String(element.action_id ?? '');
    const label = String(asObject(block.label).text ?? '');
    const key = [blockId, actionId, label].find((candidate) => candidate !== '' && candidate in values);
    const given = key === undefined ? undefined : values[key];
    if (key !== undefined) used.add(key);
    if ((given === undefined || given === '' || (Array.isArray(given) && given.length === 0)) && block.optional !== true) {
      throw new Error(`submitting modal "${titleOf(view)}": required input "${label || blockId}" has no value`);
    }
    state.values[blockId] = { [actionId]: elementValue(element, given) };
    if (given !== undefined) state.display[label || blockId] = Array.isArray(given) ? given.join(', ') : given;
  }
  const unknown = Object.keys(values).filter((key) => !used.has(key));
  if (unknown.length > 0) {
    throw new Error(`submitting modal "${titleOf(view)}": no input matches ${unknown.map((k) => `"${k}"`).join(', ')}`);
  }
  return state;
}

function elementValue(element: Json, given: string | string[] | undefined): Json {
  const type = String(element.type ?? '');
  const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const one = list[0];
  const option = (value: string) =>
    asArray(element.options).map(asObject).find((o) => o.value === value || asObject(o.text).text === value)
    ?? { text: { type: 'plain_text', text: value }, value };
  switch (type) {
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: one === undefined ? null : option(one) };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return { type, selected_options: list.map(option) };
    case 'users_select':
      return { type, selected_user: one ?? null };
    case 'multi_users_select':
      return { type, selected_users: list };
    case 'conversations_select':
      return { type, selected_conversation: one ?? null };
    case 'channels_select':
      return { type, selected_channel: one ?? null };
    case 'datepicker':
      return { type, selected_date: one ?? null };
    case 'timepicker':
      return { type, selected_time: one ?? null };
    default:
      return { type, value: one ?? null };
  }
}

export interface ViewSubmissionInput {
  teamId: string;
  teamDomain: string;
  apiAppId: string;
  user: { id: string; name: string };
  view: Json;
  stateValues: ViewState['values'];
  triggerId: string;
}

export function buildViewSubmissionPayload(input: ViewSubmissionInput): Json {
  return {
    type: 'view_submission',
    team: { id: input.teamId, domain: input.teamDomain },
    user: { id: input.user.id, username: input.user.name, name: input.user.name, team_id: input.teamId },
    api_app_id: input.apiAppId,
    token: 'fake-verification-token',
    trigger_id: input.triggerId,
    view: { ...input.view, state: { values: input.stateValues } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

function titleOf(view: Json): string {
  return String(asObject(view.title).text ?? view.callback_id ?? 'modal');
}

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
