/**
 * Fits report blocks into Slack's limits (≤50 blocks per message, ≤3000 characters per section text): lines are
 * packed into sections, sections into messages, and when even `maxMessages` messages cannot hold everything the
 * last one says exactly what was left out and where to read it — never a silent cut. `response_url` allows 5 posts
 * per command, so callers keep `maxMessages` below that.
 */

import type { KnownBlock } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { BLOCK_LIMITS, fallbackText, truncate } from './block-kit-limits.js';

export const MAX_BLOCKS = BLOCK_LIMITS.blocksPerMessage;
export const MAX_SECTION_CHARS = BLOCK_LIMITS.sectionText;

export interface Counted {
  findings?: number;
  steps?: number;
  clusters?: number;
  waivers?: number;
}

export interface BlockItem {
  blocks: KnownBlock[];
  counts?: Counted;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, MAX_SECTION_CHARS, ' … (cut: see the full output)') } };
}

export function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, MAX_SECTION_CHARS, ' …') }] };
}

/** Lines packed into section-sized chunks; each chunk is one item counting its lines as `unit`. */
export function packLines(lines: string[], unit: keyof Counted, heading?: string): BlockItem[] {
  const items: BlockItem[] = [];
  let current: string[] = heading ? [heading] : [];
  let length = heading?.length ?? 0;
  let counted = 0;
  const flush = () => {
    if (counted === 0 && current.length <= (heading ? 1 : 0)) return;
    items.push({ blocks: [section(current.join('\n'))], counts: { [unit]: counted } });
    current = [];
    length = 0;
    counted = 0;
  };
  for (const line of lines) {
    const clipped = truncate(line, MAX_SECTION_CHARS - 100, ' …');
    if (current.length > 0 && length + 1 + clipped.length > MAX_SECTION_CHARS) flush();
    current.push(clipped);
    length += (current.length > 1 ? 1 : 0) + clipped.length;
    counted++;
  }
  flush();
  return items;
}

function describeOmitted(counts: Required<Counted>): string {
  const parts = [
    counts.findings ? `${counts.findings} more finding${counts.findings === 1 ? '' : 's'}` : '',
    counts.steps ? `${counts.steps} more step${counts.steps === 1 ? '' : 's'}` : '',
    counts.clusters ? `${counts.clusters} more cluster${counts.clusters === 1 ? '' : 's'}` : '',
    counts.waivers ? `${counts.waivers} more waiver${counts.waivers === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'more';
}

/** The characters of text a block carries (what Slack's message size limit counts). */
function blockChars(block: KnownBlock): number {
  return JSON.stringify(block).length;
}

/**
 * Splits items over messages of at most MAX_BLOCKS blocks and about BLOCK_LIMITS.messageChars characters, at most
 * `maxMessages` of them; what does not fit is replaced by a context line "… N more findings — <seeAll>".
 */
export function paginate(items: BlockItem[], options: { maxMessages: number; text: string; seeAll: string }): SlackMessage[] {
  const pages: KnownBlock[][] = [[]];
  const charBudget = BLOCK_LIMITS.messageChars - 500;
  let chars = 0;
  let index = 0;
  for (; index < items.length; index++) {
    const item = items[index];
    let page = pages[pages.length - 1];
    const blocks = item.blocks.slice(0, MAX_BLOCKS - 1);
    const itemChars = blocks.reduce((sum, block) => sum + blockChars(block), 0);
    // One block of every page stays free for the "N more" line.
    if (page.length > 0 && (page.length + blocks.length > MAX_BLOCKS - 1 || chars + itemChars > charBudget)) {
      if (pages.length === options.maxMessages) break;
      pages.push((page = []));
      chars = 0;
    }
    page.push(...blocks);
    chars += itemChars;
  }
  if (index < items.length) {
    const omitted: Required<Counted> = { findings: 0, steps: 0, clusters: 0, waivers: 0 };
    for (const item of items.slice(index)) {
      omitted.findings += item.counts?.findings ?? 0;
      omitted.steps += item.counts?.steps ?? 0;
      omitted.clusters += item.counts?.clusters ?? 0;
      omitted.waivers += item.counts?.waivers ?? 0;
    }
    pages[pages.length - 1].push(context(`:scissors: ${describeOmitted(omitted)} did not fit in Slack — ${options.seeAll}`));
  }
  return pages.map((blocks, i) => ({
    text: fallbackText(pages.length > 1 ? `${options.text} (${i + 1}/${pages.length})` : options.text),
    blocks,
  }));
}
