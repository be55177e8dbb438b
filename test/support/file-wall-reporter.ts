import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter that writes each file's whole wall time — import, collection, hooks and tests — to the JSON file
 * named by FILE_WALL_OUT: `[{ file, ms }]`. vitest's JSON reporter times only a file's tests, so an end-to-end file
 * that runs its upgrade in beforeAll shows there as 0 s. `npm run test:times` adds it beside the JSON reporter and
 * ranks files by it (bench/suite-times.ts); long-files.ts's list was measured with it.
 */
export default class FileWallReporter implements Reporter {
  private readonly rows: Array<{ file: string; ms: number }> = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.rows.push({ file: module.moduleId, ms: d.prepareDuration + d.collectDuration + d.setupDuration + d.duration });
  }

  onTestRunEnd(): void {
    if (process.env.FILE_WALL_OUT) writeFileSync(process.env.FILE_WALL_OUT, JSON.stringify(this.rows));
  }
}
