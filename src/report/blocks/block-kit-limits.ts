/**
 * Block Kit limits, and the one set of helpers every renderer fits its text with. Slack refuses a whole message
 * with `invalid_blocks` when one limit is exceeded, so renderers fit content to them here — and always say what was
 * left out and where to read it ("… N more, in the thread"), never drop it silently. docs/slack-limits.md lists
 * each limit with its Slack documentation page.
 *
 * Lengths are counted as Slack counts them: in UTF-16 code units (a JavaScript string's `length`; an emoji such
 * as 🚀 counts 2). Cuts fall only on grapheme boundaries (Intl.Segmenter), so a cut never splits an emoji, a flag
 * or a letter with its accent, and never inside a mrkdwn entity (`&lt;`, `&amp;`, `&gt;`), which would show as
 * stray text.
 */

import { createHash } from 'node:crypto';
import type { ContextBlock, HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';

export const BLOCK_LIMITS = {
  /** https://docs.slack.dev/reference/block-kit/blocks */
  blocksPerMessage: 50,
  blocksPerModal: 100,
  /** https://docs.slack.dev/reference/block-kit/blocks/section-block */
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  /** https://docs.slack.dev/reference/block-kit/blocks/context-block (each element is a text object: ≤ 3000) */
  contextElements: 10,
  contextText: 3000,
  /** https://docs.slack.dev/reference/block-kit/blocks/header-block */
  headerText: 150,
  /** https://docs.slack.dev/reference/block-kit/block-elements/button-element */
  buttonText: 75,
  buttonValue: 2000,
  /** https://docs.slack.dev/reference/block-kit/composition-objects/confirmation-dialog-object */
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  blockId: 255,
  /**
   * https://docs.slack.dev/reference/methods/chat.postMessage#truncating: keep the top-level `text` under 4,000
   * characters (Slack truncates at 40,000 and refuses longer with `msg_too_long`).
   */
  messageText: 4000,
  /**
   * Not a documented limit: Slack answers `msg_blocks_too_long` for messages whose blocks hold about 13,000
   * characters or more (slackapi/bolt-js#2509). Long lists are paged well below it.
   */
  messageChars: 12_000,
} as const;

export const SEE_EXPORT = 'see the exported timeline';

export function moreText(count: number, what = 'more'): string {
  return `… ${count} ${what} (${SEE_EXPORT})`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest start of `text` of at most `max` UTF-16 units that ends on a grapheme boundary and not inside a
 * mrkdwn entity.
 */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  let head = text.slice(0, end);
  // An entity cut in half ("&am") would show as literal text: end before its ampersand instead.
  const entity = /&[a-z]{0,4}$/.exec(head);
  if (entity) head = head.slice(0, entity.index);
  return head;
}

/** Cuts `text` to at most `max` characters, marking the cut with `marker` (an ellipsis by default). */
export function truncate(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text;
  return `${cutAt(text, Math.max(0, max - marker.length))}${marker}`;
}

/** Cuts a long line, saying in the line itself that it was cut and where to read the rest. */
export function truncateLine(line: string, max: number, where = SEE_EXPORT): string {
  return truncate(line, max, ` … (truncated, ${where})`);
}

/**
 * Splits `text` into pieces of at most `max` characters without losing any of it: at the last newline that fits
 * when there is one, else at the last space, else at a grapheme boundary.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const head = cutAt(rest, max);
    const newline = head.lastIndexOf('\n');
    const space = head.lastIndexOf(' ');
    const at = newline > max / 2 ? newline : space > max / 2 ? space : head.length;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^[\n ]/, '');
  }
  pieces.push(rest);
  return pieces;
}

/**
 * Packs lines into chunks of at most `max` characters (lines joined by newlines), in order; a line longer than a
 * chunk is split over several (splitText), never cut.
 */
export function chunkLines(lines: readonly string[], max: number = BLOCK_LIMITS.sectionText): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of lines.flatMap((l) => splitText(l, max))) {
    if (current !== '' && current.length + 1 + line.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current === '' ? line : `${current}\n${line}`;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

export interface LinePage {
  /** Section texts, each at most 3,000 characters. */
  sections: string[];
  /** How many of the list's lines start on this page. */
  lines: number;
}

/**
 * A list as pages of section texts: each page holds at most `sectionsPerPage` sections and `charsPerPage`
 * characters, so a page plus a heading and buttons stays inside one message. Lines are kept whole where they fit
 * and split (never cut) where they do not.
 */
export function pageLines(lines: readonly string[], opts: { sectionsPerPage?: number; charsPerPage?: number } = {}): LinePage[] {
  const sectionsPerPage = opts.sectionsPerPage ?? BLOCK_LIMITS.blocksPerMessage - 5;
  const charsPerPage = Math.max(BLOCK_LIMITS.sectionText, opts.charsPerPage ?? BLOCK_LIMITS.messageChars - 1000);
  const max = BLOCK_LIMITS.sectionText;
  const pages: LinePage[] = [];
  let page: LinePage = { sections: [], lines: 0 };
  let chars = 0;
  let current = '';
  const closeSection = () => {
    if (current === '') return;
    page.sections.push(current);
    chars += current.length;
    current = '';
  };
  const closePage = () => {
    closeSection();
    if (page.sections.length > 0) pages.push(page);
    page = { sections: [], lines: 0 };
    chars = 0;
  };
  for (const line of lines) {
    splitText(line, max).forEach((piece, index) => {
      if (current !== '' && current.length + 1 + piece.length > max) closeSection();
      const adds = (current === '' ? 0 : current.length + 1) + piece.length;
      if (chars + adds > charsPerPage || (current === '' && page.sections.length >= sectionsPerPage)) closePage();
      if (index === 0) page.lines++;
      current = current === '' ? piece : `${current}\n${piece}`;
    });
  }
  closePage();
  return pages;
}

/**
 * A long list as one message and its follow-ups: the first message holds `heading`, as much of the list as fits,
 * "… N more <unit>, in the next messages of this thread" when not all did, and `tail` (buttons) at the end; each
 * follow-up is "<label> (k of n)" with the next part. Callers post the follow-ups in the first message's thread,
 * so nothing is cut and nothing is refused.
 */
export function pagedList(opts: {
  heading: string;
  lines: readonly string[];
  tail?: KnownBlock[];
  /** Top-level text of the first message (kept ≤ 4,000). */
  text: string;
  /** Names the list in its follow-ups ("Wave 2 plans"). */
  label: string;
  /** What a line is, for "… N more clusters": singular and plural. */
  unit: [string, string];
}): { first: SlackMessage; followUps: SlackMessage[] } {
  const heading = truncateLine(opts.heading, BLOCK_LIMITS.sectionText);
  const pages = pageLines(opts.lines, { charsPerPage: BLOCK_LIMITS.messageChars - 1000 - heading.length });
  const [firstPage, ...rest] = pages.length > 0 ? pages : [{ sections: [], lines: 0 }];
  const left = rest.reduce((sum, page) => sum + page.lines, 0);
  const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const first: SlackMessage = {
    text: fallbackText(opts.text),
    blocks: [
      section(heading),
      ...firstPage.sections.map(section),
      ...(rest.length > 0 ? [contextLine(`… ${left} more ${left === 1 ? opts.unit[0] : opts.unit[1]}, in the next ${rest.length === 1 ? 'message' : `${rest.length} messages`} of this thread`)] : []),
      ...(opts.tail ?? []),
    ],
  };
  const followUps = rest.map((page, index): SlackMessage => {
    const label = `${opts.label} (${index + 2} of ${pages.length})`;
    return { text: fallbackText(label), blocks: [contextLine(label), ...page.sections.map(section)] };
  });
  return { first, followUps };
}

/**
 * Names for a sentence: all of them when few, else the first `max` and "and N more" saying where the rest are.
 * "a, b, c and 497 more (in the rollout's thread)".
 */
export function listNames(names: readonly string[], opts: { max?: number; where?: string } = {}): string {
  const max = opts.max ?? 10;
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more${opts.where ? ` (${opts.where})` : ''}`;
}

export function mrkdwnSection(text: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncateLine(text, BLOCK_LIMITS.sectionText) } };
}

export function headerBlock(text: string): HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncateLine(text, BLOCK_LIMITS.headerText) } };
}

export function contextLine(text: string): ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncateLine(text, BLOCK_LIMITS.contextText) }] };
}

/**
 * Packs lines into as few mrkdwn sections as fit (≤3000 chars each), at most `maxSections`. Lines that do not fit
 * are counted, and a final context line says how many were left out. `wrap` lets a caller put each section's text
 * inside e.g. a code fence; its overhead is accounted for.
 */
export function linesToSections(
  lines: string[],
  maxSections: number,
  wrap: { before: string; after: string } = { before: '', after: '' },
): KnownBlock[] {
  const budget = BLOCK_LIMITS.sectionText - wrap.before.length - wrap.after.length;
  const chunks: string[] = [];
  let current: string[] = [];
  let currentLength = 0;
  let used = 0;
  for (const raw of lines) {
    const line = truncateLine(raw, budget);
    const added = current.length === 0 ? line.length : line.length + 1;
    if (current.length > 0 && currentLength + added > budget) {
      if (chunks.length + 1 >= maxSections) break;
      chunks.push(current.join('\n'));
      current = [];
      currentLength = 0;
    }
    current.push(line);
    currentLength += current.length === 1 ? line.length : line.length + 1;
    used++;
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  const blocks: KnownBlock[] = chunks.map((chunk) => mrkdwnSection(`${wrap.before}${chunk}${wrap.after}`));
  const omitted = lines.length - used;
  if (omitted > 0) blocks.push(contextLine(moreText(omitted, omitted === 1 ? 'more line' : 'more lines')));
  return blocks;
}

/**
 * Keeps a message within 50 blocks. `tail` blocks (e.g. the gate buttons or the answer line) are always kept at the
 * end; body blocks past the budget are replaced by one context line counting them.
 */
export function fitBlocks(body: KnownBlock[], tail: KnownBlock[] = []): KnownBlock[] {
  const max = BLOCK_LIMITS.blocksPerMessage;
  if (body.length + tail.length <= max) return [...body, ...tail];
  const keep = max - tail.length - 1;
  const omitted = body.length - keep;
  return [...body.slice(0, keep), contextLine(moreText(omitted, 'more blocks')), ...tail];
}

/** The `text` fallback Slack shows in notifications and screen readers, kept within its useful length. */
export function fallbackText(text: string): string {
  return truncate(text, BLOCK_LIMITS.messageText);
}

/**
 * A block_id that changes whenever the content it is rendered with changes: `base` plus a short digest of that
 * content, within Slack's 255 characters. Slack's block reference: "block_id should be unique for each message and
 * each iteration of a message. If a message is updated, use a new block_id."
 */
export function revisionBlockId(base: string, ...content: unknown[]): string {
  const digest = createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 10);
  return `${cutAt(base, BLOCK_LIMITS.blockId - digest.length - 1)}:${digest}`;
}
