import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_FILES, longFileRank } from '../support/long-files.js';

/** The sequencer's list of long files (test/support/long-files.ts): true paths, and the order it gives. */
describe('the long files the suite starts first', () => {
  it('names only test files that exist, each once', () => {
    const root = new URL('../../', import.meta.url);
    expect(LONG_FILES.filter((file) => !existsSync(new URL(file, root))), 'listed in test/support/long-files.ts but not in the repository').toEqual([]);
    expect(LONG_FILES.every((file) => file.endsWith('.test.ts'))).toBe(true);
    expect(new Set(LONG_FILES).size).toBe(LONG_FILES.length);
  });

  it('ranks the listed files in their order, ahead of every other file', () => {
    const files = ['test/unit/until.test.ts', LONG_FILES[2], 'test/e2e/demo-order.test.ts', LONG_FILES[0]];
    expect([...files].sort((a, b) => longFileRank(a) - longFileRank(b))).toEqual([LONG_FILES[0], LONG_FILES[2], 'test/unit/until.test.ts', 'test/e2e/demo-order.test.ts']);
  });
});
