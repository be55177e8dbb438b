import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { suiteOrder } from './long-files.js';

/**
 * vitest's own order (timings when it has them, else larger files first), regrouped by suiteOrder (long-files.ts):
 * one project after another, so each worker keeps its imported modules from file to file, and within each project
 * LONG_FILES first, so the workers start on the long files and the short ones fill in around them.
 * `sequence.sequencer` in vitest.config.ts.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const entries = sorted.map((spec) => ({ spec, project: spec.project.name, file: relative(this.ctx.config.root, spec.moduleId).split('\\').join('/') }));
    return suiteOrder(entries).map((entry) => entry.spec);
  }
}
