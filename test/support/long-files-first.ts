import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longFileRank } from './long-files.js';

/**
 * vitest's own order (timings when it has them, else larger files first), with LONG_FILES moved to the front in their
 * order, so the two workers start on the long files and the short ones fill in around them. `sequence.sequencer` in
 * vitest.config.ts.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => longFileRank(relative(this.ctx.config.root, spec.moduleId).split('\\').join('/'));
    // Array.prototype.sort is stable: files of equal rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
