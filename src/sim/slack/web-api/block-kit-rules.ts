/**
 * The Block Kit limits Slack enforces, checked so a bot that works against the fake does not fail with
 * `invalid_blocks` against real Slack. Each rule names the page of Slack's reference it comes from; problems are
 * worded the way Slack words them in `response_metadata.messages` ("[ERROR] must be less than 3001 characters
 * [json-pointer:/blocks/0/text/text]"). docs/slack-limits.md lists every rule with its test. Also fills in the
 * block_id/action_id Slack generates when a bot leaves them out.
 *
 * Lengths are UTF-16 code units (a JavaScript string's length), as Slack counts them.
 */

type Json = Record<string, unknown>;

/** https://docs.slack.dev/reference/block-kit/blocks: "up to 50 blocks in each message, and 100 blocks in modals". */
const MAX_MESSAGE_BLOCKS = 50;
const MAX_MODAL_BLOCKS = 100;

const BLOCK_TYPES = new Set([
  'actions', 'context', 'divider', 'file', 'header', 'image', 'input', 'section', 'rich_text', 'video', 'markdown',
]);

/** Elements an actions block may hold (https://docs.slack.dev/reference/block-kit/blocks/actions-block). */
const INTERACTIVE = new Set([
  'button', 'checkboxes', 'datepicker', 'datetimepicker', 'multi_static_select', 'multi_external_select',
  'multi_users_select', 'multi_conversations_select', 'multi_channels_select', 'overflow', 'radio_buttons',
  'static_select', 'external_select', 'users_select', 'conversations_select', 'channels_select', 'timepicker',
  'workflow_button', 'rich_text_input', 'plain_text_input', 'email_text_input', 'url_text_input', 'number_input',
  'file_input',
]);

class Problems {
  readonly list: string[] = [];
  add(message: string, at: string): void {
    this.list.push(`[ERROR] ${message} [json-pointer:${at}]`);
  }
  /** A string no longer than `max` (optional unless `required`). */
  string(value: unknown, max: number, at: string, required = false): void {
    if (value === undefined) {
      if (required) this.add('missing required field', at);
    } else if (typeof value !== 'string') this.add('must be a string', at);
    else if (value.length > max) this.add(`must be less than ${max + 1} characters`, at);
  }
  count(items: unknown, min: number, max: number, at: string): unknown[] {
    if (!Array.isArray(items)) {
      this.add('must be an array', at);
      return [];
    }
    if (items.length < min) this.add(`must provide at least ${min} item${min === 1 ? '' : 's'}`, at);
    if (items.length > max) this.add(`must be less than ${max + 1} items`, at);
    return items;
  }
  /**
   * A text object (https://docs.slack.dev/reference/block-kit/composition-objects/text-object): `plain_text` or `mrkdwn`, text 1–3000 characters;
   * `plainOnly` fields (headers, labels, button texts, titles) refuse mrkdwn.
   */
  text(value: unknown, max: number, at: string, opts: { required?: boolean; plainOnly?: boolean } = {}): void {
    if (value === undefined) {
      if (opts.required) this.add('missing required field', at);
      return;
    }
    if (!isObject(value) || (value.type !== 'plain_text' && value.type !== 'mrkdwn')) {
      this.add('must be a text object', at);
      return;
    }
    if (opts.plainOnly && value.type !== 'plain_text') this.add('must be a plain_text text object', `${at}/type`);
    if (typeof value.text !== 'string') this.add('missing required field', `${at}/text`);
    else if (value.text.length === 0) this.add('must be more than 0 characters', `${at}/text`);
    else if (value.text.length > Math.min(max, 3000)) this.add(`must be less than ${Math.min(max, 3000) + 1} characters`, `${at}/text`);
  }
  oneOf(value: unknown, allowed: readonly string[], at: string): void {
    if (value !== undefined && !allowed.includes(value as string)) this.add(`must be one of ${allowed.join(', ')}`, at);
  }
}

/** Problems in a message's blocks, in Slack's `response_metadata.messages` style; empty when valid. */
export function checkMessageBlocks(blocks: unknown): string[] {
  const problems = new Problems();
  checkBlocks(problems, blocks, MAX_MESSAGE_BLOCKS, '/blocks');
  return problems.list;
}

/**
 * Problems in a modal view (views.open / views.update / views.push), https://docs.slack.dev/reference/views/modal-views:
 * title plain_text ≤ 24 (required), ≤ 100 blocks, close and submit plain_text ≤ 24 — submit required when the view
 * holds an input block —, private_metadata ≤ 3000, callback_id ≤ 255, external_id ≤ 255 (views.update's reference:
 * https://docs.slack.dev/reference/methods/views.update).
 */
export function checkModalView(view: unknown): string[] {
  const problems = new Problems();
  if (!isObject(view)) {
    problems.add('must be an object', '/view');
    return problems.list;
  }
  if (view.type !== 'modal') problems.add('must be one of modal', '/view/type');
  problems.text(view.title, 24, '/view/title', { required: true, plainOnly: true });
  problems.text(view.submit, 24, '/view/submit', { plainOnly: true });
  problems.text(view.close, 24, '/view/close', { plainOnly: true });
  checkBlocks(problems, view.blocks, MAX_MODAL_BLOCKS, '/view/blocks');
  const hasInput = Array.isArray(view.blocks) && view.blocks.some((block) => isObject(block) && block.type === 'input');
  if (hasInput && view.submit === undefined) problems.add('submit is required when the view has input blocks', '/view/submit');
  problems.string(view.private_metadata, 3000, '/view/private_metadata');
  problems.string(view.callback_id, 255, '/view/callback_id');
  problems.string(view.external_id, 255, '/view/external_id');
  return problems.list;
}

function checkBlocks(problems: Problems, blocks: unknown, max: number, at: string): void {
  const list = problems.count(blocks, 0, max, at);
  const blockIds = new Set<string>();
  list.forEach((block, index) => {
    const here = `${at}/${index}`;
    if (!isObject(block) || !BLOCK_TYPES.has(String(block.type))) {
      problems.add('unsupported block type', `${here}/type`);
      return;
    }
    // Every block: block_id ≤ 255, unique in the message or view (https://docs.slack.dev/reference/block-kit/blocks).
    problems.string(block.block_id, 255, `${here}/block_id`);
    if (typeof block.block_id === 'string') {
      if (blockIds.has(block.block_id)) problems.add('duplicate block_id', `${here}/block_id`);
      blockIds.add(block.block_id);
    }
    checkBlock(problems, block, here);
  });
}

function checkBlock(problems: Problems, block: Json, at: string): void {
  switch (block.type) {
    case 'header': // https://docs.slack.dev/reference/block-kit/blocks/header-block
      problems.text(block.text, 150, `${at}/text`, { required: true, plainOnly: true });
      break;
    case 'section': // https://docs.slack.dev/reference/block-kit/blocks/section-block
      if (block.text === undefined && block.fields === undefined) problems.add('must provide text or fields', at);
      problems.text(block.text, 3000, `${at}/text`);
      if (block.fields !== undefined) {
        problems.count(block.fields, 1, 10, `${at}/fields`).forEach((field, i) => problems.text(field, 2000, `${at}/fields/${i}`, { required: true }));
      }
      if (block.accessory !== undefined) checkElement(problems, block.accessory, `${at}/accessory`);
      break;
    case 'context': // https://docs.slack.dev/reference/block-kit/blocks/context-block: 1–10 image elements and text objects
      problems.count(block.elements, 1, 10, `${at}/elements`).forEach((element, i) => {
        const here = `${at}/elements/${i}`;
        if (isObject(element) && element.type === 'image') checkImage(problems, element, here);
        else problems.text(element, 3000, here, { required: true });
      });
      break;
    case 'actions': { // https://docs.slack.dev/reference/block-kit/blocks/actions-block: 1–25 interactive elements, action_ids unique in the block
      const actionIds = new Set<string>();
      problems.count(block.elements, 1, 25, `${at}/elements`).forEach((element, i) => {
        const here = `${at}/elements/${i}`;
        if (!isObject(element) || !INTERACTIVE.has(String(element.type))) return problems.add('unsupported element type', `${here}/type`);
        checkElement(problems, element, here);
        if (typeof element.action_id === 'string') {
          if (actionIds.has(element.action_id)) problems.add('duplicate action_id', `${here}/action_id`);
          actionIds.add(element.action_id);
        }
      });
      break;
    }
    case 'input': // https://docs.slack.dev/reference/block-kit/blocks/input-block: label and hint plain_text ≤ 2000
      problems.text(block.label, 2000, `${at}/label`, { required: true, plainOnly: true });
      problems.text(block.hint, 2000, `${at}/hint`, { plainOnly: true });
      if (!isObject(block.element)) problems.add('missing required field', `${at}/element`);
      else checkElement(problems, block.element, `${at}/element`);
      break;
    case 'image': // https://docs.slack.dev/reference/block-kit/blocks/image-block
      checkImage(problems, block, at);
      problems.text(block.title, 2000, `${at}/title`, { plainOnly: true });
      break;
    default:
      break;
  }
}

/** Image block or element: image_url ≤ 3000 (or a slack_file), alt_text required ≤ 2000 (https://docs.slack.dev/reference/block-kit/block-elements/image-element). */
function checkImage(problems: Problems, image: Json, at: string): void {
  if (image.slack_file === undefined) problems.string(image.image_url, 3000, `${at}/image_url`, true);
  problems.string(image.alt_text, 2000, `${at}/alt_text`, true);
  if (image.alt_text === '') problems.add('must be more than 0 characters', `${at}/alt_text`);
}

function checkElement(problems: Problems, raw: unknown, at: string): void {
  if (!isObject(raw)) return problems.add('must be an object', at);
  const element = raw;
  // Every interactive element: action_id ≤ 255 (e.g. https://docs.slack.dev/reference/block-kit/block-elements/button-element).
  problems.string(element.action_id, 255, `${at}/action_id`);
  if (element.confirm !== undefined) checkConfirm(problems, element.confirm, `${at}/confirm`);
  // Select menus, pickers and text inputs: placeholder plain_text ≤ 150.
  problems.text(element.placeholder, 150, `${at}/placeholder`, { plainOnly: true });
  switch (element.type) {
    case 'button': // https://docs.slack.dev/reference/block-kit/block-elements/button-element
      problems.text(element.text, 75, `${at}/text`, { required: true, plainOnly: true });
      problems.string(element.value, 2000, `${at}/value`);
      problems.string(element.url, 3000, `${at}/url`);
      problems.string(element.accessibility_label, 75, `${at}/accessibility_label`);
      problems.oneOf(element.style, ['primary', 'danger'], `${at}/style`);
      break;
    case 'plain_text_input': // https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element: min_length 0–3000, max_length 1–3000
      integerIn(problems, element.min_length, 0, 3000, `${at}/min_length`);
      integerIn(problems, element.max_length, 1, 3000, `${at}/max_length`);
      if (typeof element.min_length === 'number' && typeof element.max_length === 'number' && element.min_length > element.max_length) {
        problems.add('min_length must not be greater than max_length', `${at}/min_length`);
      }
      break;
    case 'datepicker': // https://docs.slack.dev/reference/block-kit/block-elements/date-picker-element: initial_date YYYY-MM-DD
      if (element.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(element.initial_date))) {
        problems.add('must match the format YYYY-MM-DD', `${at}/initial_date`);
      }
      break;
    case 'static_select':
    case 'multi_static_select':
    case 'overflow':
    case 'checkboxes':
    case 'radio_buttons': { // https://docs.slack.dev/reference/block-kit/composition-objects/option-object: text ≤ 75, value ≤ 150
      const max = element.type === 'overflow' ? 5 : element.type === 'checkboxes' || element.type === 'radio_buttons' ? 10 : 100;
      if (element.options !== undefined || element.option_groups === undefined) {
        problems.count(element.options, element.type === 'overflow' ? 1 : 0, max, `${at}/options`).forEach((option, i) => {
          const here = `${at}/options/${i}`;
          if (!isObject(option)) return problems.add('must be an object', here);
          problems.text(option.text, 75, `${here}/text`, { required: true, plainOnly: element.type !== 'checkboxes' && element.type !== 'radio_buttons' });
          problems.string(option.value, 150, `${here}/value`, true);
        });
      }
      break;
    }
    default:
      break;
  }
}

/**
 * https://docs.slack.dev/reference/block-kit/composition-objects/confirmation-dialog-object: title plain_text ≤ 100, text plain_text ≤ 300, confirm
 * and deny plain_text ≤ 30, all required; style primary or danger.
 */
function checkConfirm(problems: Problems, confirm: unknown, at: string): void {
  if (!isObject(confirm)) return problems.add('must be an object', at);
  problems.text(confirm.title, 100, `${at}/title`, { required: true, plainOnly: true });
  problems.text(confirm.text, 300, `${at}/text`, { required: true, plainOnly: true });
  problems.text(confirm.confirm, 30, `${at}/confirm`, { required: true, plainOnly: true });
  problems.text(confirm.deny, 30, `${at}/deny`, { required: true, plainOnly: true });
  problems.oneOf(confirm.style, ['primary', 'danger'], `${at}/style`);
}

function integerIn(problems: Problems, value: unknown, min: number, max: number, at: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value)) problems.add('must be an integer', at);
  else if (value < min || value > max) problems.add(`must be between ${min} and ${max}`, at);
}

/**
 * Slack answers a message with the block_id and action_id it generated for blocks and elements that had none;
 * the interaction payloads then carry those. Deterministic ids here (b1, a1…) keep test output stable.
 */
export function withGeneratedIds(blocks: unknown[] | undefined, nextId: () => number): unknown[] | undefined {
  if (!Array.isArray(blocks)) return blocks;
  return blocks.map((raw) => {
    if (!isObject(raw)) return raw;
    const block: Json = { ...raw };
    if (typeof block.block_id !== 'string' && block.type !== 'divider') block.block_id = `b${nextId()}`;
    const withActionId = (element: unknown) =>
      isObject(element) && typeof element.action_id !== 'string' && element.type !== 'image' && element.type !== 'mrkdwn'
        && element.type !== 'plain_text'
        ? { ...element, action_id: `a${nextId()}` }
        : element;
    if (Array.isArray(block.elements) && block.type === 'actions') block.elements = block.elements.map(withActionId);
    if (isObject(block.accessory)) block.accessory = withActionId(block.accessory);
    if (isObject(block.element)) block.element = withActionId(block.element);
    return block;
  });
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
