/**
 * The Block Kit limits Slack enforces (docs.slack.dev/reference/block-kit; summarised in
 * shared/reference/slack.md), checked so a bot that works against the fake does not fail with `invalid_blocks`
 * against real Slack. Also fills in the block_id/action_id Slack generates when a bot leaves them out.
 */

type Json = Record<string, unknown>;

const BLOCK_TYPES = new Set([
  'actions', 'context', 'divider', 'file', 'header', 'image', 'input', 'section', 'rich_text', 'video', 'markdown',
]);

/** Problems in a message's blocks, in Slack's `response_metadata.messages` style; empty when valid. */
export function checkMessageBlocks(blocks: unknown): string[] {
  return checkBlocks(blocks, 50);
}

/** Problems in a modal view (views.open / views.update). */
export function checkModalView(view: unknown): string[] {
  if (!isObject(view)) return ['[ERROR] view must be an object [json-pointer:/view]'];
  const problems = checkBlocks(view.blocks ?? [], 100);
  if (view.type !== 'modal') problems.push('[ERROR] view.type must be "modal" [json-pointer:/view/type]');
  textLimit(problems, view.title, 24, '/view/title', true);
  textLimit(problems, view.submit, 24, '/view/submit');
  textLimit(problems, view.close, 24, '/view/close');
  stringLimit(problems, view.private_metadata, 3000, '/view/private_metadata');
  stringLimit(problems, view.callback_id, 255, '/view/callback_id');
  return problems;
}

function checkBlocks(blocks: unknown, max: number): string[] {
  if (!Array.isArray(blocks)) return ['[ERROR] blocks must be an array [json-pointer:/blocks]'];
  const problems: string[] = [];
  if (blocks.length > max) problems.push(`[ERROR] must be less than ${max + 1} items [json-pointer:/blocks]`);
  const blockIds = new Set<string>();
  blocks.forEach((block, index) => {
    const at = `/blocks/${index}`;
    if (!isObject(block) || !BLOCK_TYPES.has(String(block.type))) {
      problems.push(`[ERROR] unsupported block type [json-pointer:${at}/type]`);
      return;
    }
    if (typeof block.block_id === 'string') {
      stringLimit(problems, block.block_id, 255, `${at}/block_id`);
      if (blockIds.has(block.block_id)) problems.push(`[ERROR] duplicate block_id [json-pointer:${at}/block_id]`);
      blockIds.add(block.block_id);
    }
    checkBlock(problems, block, at);
  });
  return problems;
}

function checkBlock(problems: string[], block: Json, at: string): void {
  switch (block.type) {
    case 'header':
      textLimit(problems, block.text, 150, `${at}/text`, true);
      break;
    case 'section':
      if (block.text === undefined && block.fields === undefined) {
        problems.push(`[ERROR] must provide text or fields [json-pointer:${at}]`);
      }
      textLimit(problems, block.text, 3000, `${at}/text`);
      if (Array.isArray(block.fields)) {
        if (block.fields.length > 10) problems.push(`[ERROR] must be less than 11 items [json-pointer:${at}/fields]`);
        block.fields.forEach((field, i) => textLimit(problems, field, 2000, `${at}/fields/${i}`));
      }
      if (isObject(block.accessory)) checkElement(problems, block.accessory, `${at}/accessory`);
      break;
    case 'context':
      countLimit(problems, block.elements, 10, `${at}/elements`);
      break;
    case 'actions': {
      countLimit(problems, block.elements, 25, `${at}/elements`);
      const actionIds = new Set<string>();
      (Array.isArray(block.elements) ? block.elements : []).forEach((element, i) => {
        if (!isObject(element)) return;
        checkElement(problems, element, `${at}/elements/${i}`);
        if (typeof element.action_id === 'string') {
          if (actionIds.has(element.action_id)) {
            problems.push(`[ERROR] duplicate action_id [json-pointer:${at}/elements/${i}/action_id]`);
          }
          actionIds.add(element.action_id);
        }
      });
      break;
    }
    case 'input':
      textLimit(problems, block.label, 2000, `${at}/label`, true);
      if (!isObject(block.element)) problems.push(`[ERROR] missing required field: element [json-pointer:${at}]`);
      break;
    default:
      break;
  }
}

function checkElement(problems: string[], element: Json, at: string): void {
  stringLimit(problems, element.action_id, 255, `${at}/action_id`);
  if (element.type !== 'button') return;
  textLimit(problems, element.text, 75, `${at}/text`, true);
  stringLimit(problems, element.value, 2000, `${at}/value`);
  if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') {
    problems.push(`[ERROR] must be one of primary, danger [json-pointer:${at}/style]`);
  }
  if (isObject(element.confirm)) {
    textLimit(problems, element.confirm.title, 100, `${at}/confirm/title`, true);
    textLimit(problems, element.confirm.text, 300, `${at}/confirm/text`, true);
    textLimit(problems, element.confirm.confirm, 30, `${at}/confirm/confirm`, true);
    textLimit(problems, element.confirm.deny, 30, `${at}/confirm/deny`, true);
  }
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

function textLimit(problems: string[], text: unknown, max: number, at: string, required = false): void {
  if (text === undefined) {
    if (required) problems.push(`[ERROR] missing required field [json-pointer:${at}]`);
    return;
  }
  const value = typeof text === 'string' ? text : isObject(text) ? text.text : undefined;
  if (typeof value !== 'string') {
    problems.push(`[ERROR] must be a text object [json-pointer:${at}]`);
  } else if (value.length > max) {
    problems.push(`[ERROR] must be less than ${max + 1} characters [json-pointer:${at}/text]`);
  } else if (required && value.length === 0) {
    problems.push(`[ERROR] must be more than 0 characters [json-pointer:${at}/text]`);
  }
}

function stringLimit(problems: string[], value: unknown, max: number, at: string): void {
  if (typeof value === 'string' && value.length > max) {
    problems.push(`[ERROR] must be less than ${max + 1} characters [json-pointer:${at}]`);
  }
}

function countLimit(problems: string[], items: unknown, max: number, at: string): void {
  if (!Array.isArray(items) || items.length === 0) problems.push(`[ERROR] must provide at least 1 item [json-pointer:${at}]`);
  else if (items.length > max) problems.push(`[ERROR] must be less than ${max + 1} items [json-pointer:${at}]`);
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
