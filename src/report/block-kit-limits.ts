/**
 * Block Kit limits (docs.slack.dev, summarised in shared/reference/slack.md). Slack rejects a whole message with
 * `invalid_blocks` when one is exceeded, so renderers fit content to them here — and always say what was left out
 * ("… N more (see the exported timeline)"), never drop it silently.
 */

import type { ContextBlock, KnownBlock, SectionBlock } from '@slack/types';

export const BLOCK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  contextText: 3000,
  headerText: 150,
  buttonText: 75,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  blockId: 255,
  /** Not a hard limit, but Slack truncates longer fallbacks and notifications show only the start. */
  messageText: 4000,
} as const;

export const SEE_EXPORT = 'see the exported timeline';

export function moreText(count: number, what = 'more'): string {
  return `… ${count} ${what} (${SEE_EXPORT})`;
}

/** Cuts `text` to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Cuts a long line, saying in the line itself that it was cut and where to read the rest. */
export function truncateLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const marker = ` … (truncated, ${SEE_EXPORT})`;
  return `${line.slice(0, Math.max(0, max - marker.length))}${marker}`;
}

export function mrkdwnSection(text: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncateLine(text, BLOCK_LIMITS.sectionText) } };
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
