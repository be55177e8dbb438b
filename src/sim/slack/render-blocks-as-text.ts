/**
 * Block Kit rendered as plain text, roughly the way a Slack client lays it out: headers in caps and bold, sections
 * with their fields and accessory, context lines, dividers, buttons as `[ Continue ](primary)`. Pure: used by the
 * fake Slack's conversation view (`npm run demo`) and by tests that assert what a user would read.
 * Input is `unknown` on purpose: it renders whatever a bot sent, including malformed blocks, without throwing.
 */

type Json = Record<string, unknown>;

const DIVIDER = '─'.repeat(32);

export interface RenderableMessage {
  text?: string;
  blocks?: readonly unknown[];
  attachments?: readonly unknown[];
}

/** A whole message: its blocks when it has any (the `text` is then only the notification fallback), else its text. */
export function renderMessageAsText(message: RenderableMessage): string {
  const parts: string[] = [];
  const hasBlocks = Array.isArray(message.blocks) && message.blocks.length > 0;
  if (hasBlocks) parts.push(renderBlocksAsText(message.blocks));
  else if (message.text) parts.push(mrkdwnToText(message.text));
  for (const attachment of message.attachments ?? []) parts.push(renderAttachment(asObject(attachment)));
  return parts.filter((part) => part !== '').join('\n');
}

/** Renders blocks, one or more lines each; `fallbackText` is used when there are no blocks. */
export function renderBlocksAsText(blocks: readonly unknown[] | undefined, fallbackText?: string): string {
  if (!blocks || blocks.length === 0) return fallbackText === undefined ? '' : mrkdwnToText(fallbackText);
  return blocks.flatMap((block) => renderBlock(asObject(block))).join('\n');
}

/** Slack's mrkdwn escapes and link syntax as a reader sees them: `<@U1>` → `@U1`, `<url|label>` → `label (url)`. */
export function mrkdwnToText(text: string): string {
  return text
    .replace(/<([^<>]+)>/g, (_match, inner: string) => {
      const [target, label] = splitOnce(inner, '|');
      if (target.startsWith('@')) return label ? `@${label}` : target;
      if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
      if (target.startsWith('!subteam^')) return label ?? `@${target.slice('!subteam^'.length)}`;
      if (target.startsWith('!date^')) return label ?? target;
      if (target.startsWith('!')) return `@${target.slice(1)}`;
      return label ? `${label} (${target})` : target;
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function renderBlock(block: Json): string[] {
  switch (block.type) {
    case 'header':
      return [`*${textOf(block.text).toUpperCase()}*`];
    case 'section':
      return renderSection(block);
    case 'context':
      return [`› ${asArray(block.elements).map((element) => renderContextElement(asObject(element))).join(' · ')}`];
    case 'divider':
      return [DIVIDER];
    case 'actions':
      return [asArray(block.elements).map((element) => renderElement(asObject(element))).join('  ')];
    case 'image':
      return [`[image: ${textOf(block.title) || String(block.alt_text ?? '')}]`];
    case 'input':
      return renderInput(block);
    case 'rich_text':
      return renderRichText(asArray(block.elements));
    case 'markdown':
      return [String(block.text ?? '')];
    case 'file':
      return [`[file: ${String(block.external_id ?? '')}]`];
    case 'video':
      return [`[video: ${textOf(block.title)}]`];
    default:
      return [`[${String(block.type ?? 'unknown')} block]`];
  }
}

function renderSection(block: Json): string[] {
  const lines: string[] = [];
  const text = textOf(block.text);
  if (text) lines.push(text);
  for (const field of asArray(block.fields)) lines.push(textOf(field));
  if (block.accessory) lines.push(renderElement(asObject(block.accessory)));
  return lines;
}

function renderInput(block: Json): string[] {
  const optional = block.optional === true ? ' (optional)' : '';
  const lines = [`${textOf(block.label)}${optional}: ${renderElement(asObject(block.element))}`];
  if (block.hint) lines.push(`› ${textOf(block.hint)}`);
  return lines;
}

/** One interactive element as the control a user sees. */
export function renderElement(element: Json): string {
  const type = String(element.type ?? '');
  switch (type) {
    case 'button': {
      const hints = [element.style, element.confirm ? 'confirm' : undefined].filter((hint) => typeof hint === 'string');
      const link = element.url ? ' ↗' : '';
      return `[ ${textOf(element.text)}${link} ]${hints.length > 0 ? `(${hints.join(', ')})` : ''}`;
    }
    case 'overflow':
      return '[ ⋯ ]';
    case 'datepicker':
      return `[ 📅 ${String(element.initial_date ?? '') || textOf(element.placeholder) || 'date'} ]`;
    case 'timepicker':
      return `[ 🕒 ${String(element.initial_time ?? '') || textOf(element.placeholder) || 'time'} ]`;
    case 'checkboxes':
    case 'radio_buttons':
      return renderChoices(element, type === 'checkboxes' ? ['☑', '☐'] : ['◉', '◯']);
    case 'image':
      return `[image: ${String(element.alt_text ?? '')}]`;
    default:
      if (type.endsWith('_select')) return `[ ${selectLabel(element)} ▾ ]`;
      if (type.endsWith('_input')) {
        const shown = String(element.initial_value ?? '') || textOf(element.placeholder) || '…';
        return element.multiline === true ? `[ ${shown} ¶ ]` : `[ ${shown} ]`;
      }
      return `[${type || 'element'}]`;
  }
}

function renderChoices(element: Json, [on, off]: [string, string]): string {
  const selected = new Set(
    [...asArray(element.initial_options), element.initial_option].filter(Boolean).map((option) => asObject(option).value),
  );
  return asArray(element.options)
    .map((option) => `${selected.has(asObject(option).value) ? on : off} ${textOf(asObject(option).text)}`)
    .join('  ');
}

function selectLabel(element: Json): string {
  const initial = asObject(element.initial_option);
  if (initial.text) return textOf(initial.text);
  if (Array.isArray(element.initial_options) && element.initial_options.length > 0) {
    return element.initial_options.map((option) => textOf(asObject(option).text)).join(', ');
  }
  for (const key of ['initial_user', 'initial_conversation', 'initial_channel']) {
    if (typeof element[key] === 'string') return String(element[key]);
  }
  return textOf(element.placeholder) || 'Select';
}

function renderContextElement(element: Json): string {
  if (element.type === 'image') return `[${String(element.alt_text ?? 'image')}]`;
  return textOf(element);
}

function renderAttachment(attachment: Json): string {
  const lines: string[] = [];
  for (const key of ['pretext', 'title', 'text']) {
    if (typeof attachment[key] === 'string' && attachment[key]) lines.push(mrkdwnToText(String(attachment[key])));
  }
  for (const field of asArray(attachment.fields)) {
    const { title, value } = asObject(field);
    lines.push(`${String(title ?? '')}: ${mrkdwnToText(String(value ?? ''))}`);
  }
  if (Array.isArray(attachment.blocks)) lines.push(renderBlocksAsText(attachment.blocks));
  if (typeof attachment.footer === 'string') lines.push(`› ${mrkdwnToText(attachment.footer)}`);
  return lines
    .join('\n')
    .split('\n')
    .map((line) => `▌ ${line}`)
    .join('\n');
}

function renderRichText(elements: unknown[]): string[] {
  const lines: string[] = [];
  for (const raw of elements) {
    const element = asObject(raw);
    if (element.type === 'rich_text_list') {
      const ordered = element.style === 'ordered';
      asArray(element.elements).forEach((item, index) => {
        lines.push(`${ordered ? `${index + 1}.` : '•'} ${richInline(asArray(asObject(item).elements))}`);
      });
    } else if (element.type === 'rich_text_preformatted') {
      lines.push('```', ...richInline(asArray(element.elements)).split('\n'), '```');
    } else if (element.type === 'rich_text_quote') {
      lines.push(...richInline(asArray(element.elements)).split('\n').map((line) => `> ${line}`));
    } else {
      lines.push(...richInline(asArray(element.elements)).split('\n'));
    }
  }
  return lines;
}

function richInline(elements: unknown[]): string {
  return elements
    .map((raw) => {
      const element = asObject(raw);
      switch (element.type) {
        case 'text':
          return String(element.text ?? '');
        case 'link':
          return element.text ? `${String(element.text)} (${String(element.url)})` : String(element.url ?? '');
        case 'user':
          return `@${String(element.user_id ?? '')}`;
        case 'usergroup':
          return `@${String(element.usergroup_id ?? '')}`;
        case 'channel':
          return `#${String(element.channel_id ?? '')}`;
        case 'emoji':
          return `:${String(element.name ?? '')}:`;
        case 'broadcast':
          return `@${String(element.range ?? '')}`;
        default:
          return '';
      }
    })
    .join('');
}

/** A text object (plain_text or mrkdwn) or a bare string, as displayed. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return mrkdwnToText(value);
  const object = asObject(value);
  if (typeof object.text !== 'string') return '';
  return object.type === 'mrkdwn' ? mrkdwnToText(object.text) : object.text;
}

function splitOnce(value: string, separator: string): [string, string | undefined] {
  const index = value.indexOf(separator);
  return index < 0 ? [value, undefined] : [value.slice(0, index), value.slice(index + 1)];
}

function asObject(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
