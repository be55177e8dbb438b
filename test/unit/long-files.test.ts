import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_FILES, longFileRank, suiteOrder } from '../support/long-files.js';

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

  it('runs one project after another (a worker is kept only for a file of its own project), each long files first, the project of the longest file first', () => {
    const e2eLong = LONG_FILES.find((file) => file.startsWith('test/e2e/'))!;
    const integrationLong = LONG_FILES.filter((file) => file.startsWith('test/integration/'));
    // vitest's order: projects by name, then larger files first.
    const given = [
      { project: 'e2e', file: 'test/e2e/demo-order.test.ts' },
      { project: 'e2e', file: e2eLong },
      { project: 'integration', file: 'test/integration/compose-clusters.test.ts' },
      { project: 'integration', file: integrationLong[1] },
      { project: 'integration', file: integrationLong[0] },
      { project: 'unit', file: 'test/unit/until.test.ts' },
    ];
    const order = suiteOrder(given);
    expect(order.map((entry) => entry.file)).toEqual([integrationLong[0], integrationLong[1], 'test/integration/compose-clusters.test.ts', e2eLong, 'test/e2e/demo-order.test.ts', 'test/unit/until.test.ts']);
    const changes = order.filter((entry, at) => at > 0 && entry.project !== order[at - 1].project);
    expect(changes).toHaveLength(2);
  });
});
