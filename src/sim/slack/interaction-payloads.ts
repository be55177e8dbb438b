/**
 * The requests Slack sends to an app when a user types a slash command or clicks a button, field for field
 * (docs.slack.dev "Implementing slash commands" and "block_actions payloads").
 */

type Json = Record<string, unknown>;

export interface SlashCommandFields {
  teamId: string;
  teamDomain: string;
  channelId: string;
  channelName: string;
  userId: string;
  userName: string;
  command: string;
  text: string;
  apiAppId: string;
  responseUrl: string;
  triggerId: string;
}

/** The form-encoded body of a slash command, in Slack's field order (token is deprecated but still sent). */
export function buildSlashCommandBody(fields: SlashCommandFields): string {
  return new URLSearchParams([
    ['token', 'fake-verification-token'],
    ['team_id', fields.teamId],
    ['team_domain', fields.teamDomain],
    ['channel_id', fields.channelId],
    ['channel_name', fields.channelName],
    ['user_id', fields.userId],
    ['user_name', fields.userName],
    ['command', fields.command],
    ['text', fields.text],
    ['api_app_id', fields.apiAppId],
    ['is_enterprise_install', 'false'],
    ['response_url', fields.responseUrl],
    ['trigger_id', fields.triggerId],
  ]).toString();
}

export interface FoundButton {
  blockId: string;
  element: Json;
  label: string;
}

/**
 * A button in a message's blocks (actions blocks and section accessories), found by action_id or by its visible
 * text (case-insensitive); `value` narrows the match when several buttons share an action_id.
 */
export function findButton(
  blocks: unknown[] | undefined,
  by: { actionId?: string; text?: string; value?: string },
): FoundButton | undefined {
  const wanted = by.text?.trim().toLowerCase();
  return listButtons(blocks).find(({ element, label }) =>
    (by.actionId === undefined || element.action_id === by.actionId) &&
    (wanted === undefined || label.trim().toLowerCase() === wanted) &&
    (by.value === undefined || element.value === by.value));
}

export function listButtons(blocks: unknown[] | undefined): FoundButton[] {
  const found: FoundButton[] = [];
  for (const raw of blocks ?? []) {
    const block = asObject(raw);
    const candidates = block.type === 'actions' ? asArray(block.elements) : [block.accessory];
    for (const candidate of candidates) {
      const element = asObject(candidate);
      if (element.type !== 'button') continue;
      found.push({ blockId: String(block.block_id ?? ''), element, label: String(asObject(element.text).text ?? '') });
    }
  }
  return found;
}

export interface BlockActionsInput {
  teamId: string;
  teamDomain: string;
  apiAppId: string;
  user: { id: string; name: string };
  channel: { id: string; name: string };
  /** The message as the Web API returns it; omitted for ephemerals, as Slack does. */
  message?: Json;
  messageTs: string;
  /** Parent ts when the clicked message is a thread reply (Slack puts it in `container.thread_ts`). */
  threadTs?: string;
  isEphemeral: boolean;
  button: FoundButton;
  actionTs: string;
  responseUrl: string;
  triggerId: string;
  stateValues?: Json;
}

/** A `block_actions` payload for one button click (sent form-encoded as `payload=<json>`). */
export function buildBlockActionsPayload(input: BlockActionsInput): Json {
  const { element } = input.button;
  return {
    type: 'block_actions',
    user: { id: input.user.id, username: input.user.name, name: input.user.name, team_id: input.teamId },
    api_app_id: input.apiAppId,
    token: 'fake-verification-token',
    container: {
      type: 'message',
      message_ts: input.messageTs,
      channel_id: input.channel.id,
      is_ephemeral: input.isEphemeral,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    trigger_id: input.triggerId,
    team: { id: input.teamId, domain: input.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: input.channel,
    ...(input.message ? { message: input.message } : {}),
    state: { values: input.stateValues ?? {} },
    response_url: input.responseUrl,
    actions: [
      {
        action_id: element.action_id,
        block_id: input.button.blockId,
        text: element.text,
        ...(element.value !== undefined ? { value: element.value } : {}),
        ...(element.style !== undefined ? { style: element.style } : {}),
        ...(element.confirm !== undefined ? { confirm: element.confirm } : {}),
        type: 'button',
        action_ts: input.actionTs,
      },
    ],
  };
}

/** Interaction payloads travel as one form field holding JSON. */
export function encodePayload(payload: Json): string {
  return new URLSearchParams([['payload', JSON.stringify(payload)]]).toString();
}

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
