import { describe, expect, it } from 'vitest';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { BLOCK_LIMITS, chunkLines, cutAt, fallbackText, listNames, pagedList, pageLines, splitText, truncate } from '../../src/report/blocks/block-kit-limits.js';

// The one set of limit helpers every renderer fits its text with: Slack counts UTF-16 units, cuts fall on
// grapheme boundaries and never inside a mrkdwn entity, and long lists page instead of being cut.
describe('block-kit-limits', () => {
  it('counts UTF-16 units and never cuts an emoji, a flag or an accented letter in half', () => {
    const rockets = '🚀'.repeat(10); // 20 UTF-16 units
    const cut = truncate(rockets, 6);
    expect(cut).toBe('🚀🚀…');
    expect(cut.length).toBeLessThanOrEqual(6);
    expect(truncate('ab🇩🇪cd', 5)).toBe('ab…'); // the flag is 4 units, one grapheme
    expect(cutAt('e\u0301e\u0301e\u0301', 3)).toBe('e\u0301'); // é as e + combining accent stays whole
    expect(truncate('👩‍👩‍👦‍👦 family', 8)).toBe('…');
  });

  it('never cuts inside &lt; &amp; &gt;', () => {
    expect(cutAt('a&lt;b', 3)).toBe('a');
    expect(cutAt('a&amp;b', 5)).toBe('a');
    expect(cutAt('a&amp;b', 6)).toBe('a&amp;');
  });

  it('splits text into pieces without losing a character, preferring newlines and spaces', () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const pieces = splitText(text, 100);
    expect(pieces.every((piece) => piece.length <= 100)).toBe(true);
    expect(pieces.join(' ')).toBe(text);
    const rockets = '🚀'.repeat(100);
    expect(splitText(rockets, 51).join('')).toBe(rockets);
    expect(chunkLines(['a'.repeat(4000)], 3000).map((c) => c.length)).toEqual([3000, 1000]);
  });

  it('pages a long list so each page fits a message, and counts the lines on each page', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `• *cluster-${i}-${'x'.repeat(90)}* 1.30 → 1.31: 7 steps, 40 min, 0 blocking findings`);
    const pages = pageLines(lines);
    expect(pages.reduce((sum, page) => sum + page.lines, 0)).toBe(500);
    for (const page of pages) {
      expect(page.sections.every((s) => s.length <= BLOCK_LIMITS.sectionText)).toBe(true);
      expect(page.sections.join('').length).toBeLessThanOrEqual(BLOCK_LIMITS.messageChars);
    }
    expect(pages.flatMap((page) => page.sections).join('\n')).toBe(lines.join('\n'));
  });

  it('a paged list says how many more lines follow and where, and keeps its buttons on the first message', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `• cluster-${i}-${'y'.repeat(80)}`);
    const tail = [{ type: 'actions' as const, elements: [{ type: 'button' as const, action_id: 'go', text: { type: 'plain_text' as const, text: 'Go' } }] }];
    const { first, followUps } = pagedList({ heading: '*Wave 1*', lines, tail, text: 'Wave 1', label: 'Wave 1 plans', unit: ['cluster', 'clusters'] });
    expect(checkMessageBlocks(first.blocks)).toEqual([]);
    expect(first.blocks!.at(-1)).toEqual(tail[0]);
    const shown = (first.blocks!.slice(1, -2) as Array<{ text: { text: string } }>).map((b) => b.text.text.split('\n').length).reduce((a, b) => a + b, 0);
    expect(JSON.stringify(first.blocks)).toContain(`… ${300 - shown} more clusters, in the next ${followUps.length} messages of this thread`);
    for (const followUp of followUps) expect(checkMessageBlocks(followUp.blocks)).toEqual([]);
    expect(followUps[0].text).toBe(`Wave 1 plans (2 of ${followUps.length + 1})`);
  });

  it('keeps the fallback text within 4,000 and lists names as "a, b and N more"', () => {
    expect(fallbackText('🚀'.repeat(3000)).length).toBeLessThanOrEqual(4000);
    expect(listNames(['a', 'b', 'c'], { max: 2, where: 'in the thread' })).toBe('a, b and 1 more (in the thread)');
    expect(listNames(['a', 'b'])).toBe('a, b');
  });
});
