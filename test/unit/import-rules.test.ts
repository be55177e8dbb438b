import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The import rules `npm test` enforces (.dependency-cruiser.cjs, run by test/support/check-imports.mjs) catch each
 * kind of violation: test/fixtures/import-rules is a small tree with one planted per rule and one allowed import
 * (src/report/planted-clean.ts → src/ports, a job → the simulator's twin, a simulator test → its insides) that must
 * stay unflagged; likewise a queue, a Redis connection and a WebClient built outside an entry point, and one built in
 * an entry point (src/cli/planted-entry.ts).
 */
const SCRIPT = fileURLToPath(new URL('../support/check-imports.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/import-rules/', import.meta.url));

async function checkImports(root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, '--root', root]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The rest of each line of `output` that starts with `prefix`. */
function linesAfter(output: string, prefix: string): string[] {
  return output.split('\n').filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
}

describe('import rules', () => {
  it('fail the check on an upward import, a file or folder cycle, a file outside the tiers, either way past the simulator boundary, and product code importing more of the simulator than its twin', async () => {
    const { code, stderr } = await checkImports(FIXTURE);
    expect(code).toBe(1);
    const broken = linesAfter(stderr, 'import rule broken: ');
    expect(broken.sort()).toEqual([
      'base-imports-upward: src/ports/planted-port.ts → src/store/planted-store.ts',
      'file-outside-the-tiers: src/planted-outside.ts → src/planning/planted-plan.ts',
      'no-file-cycles: src/report/planted-a.ts → src/report/planted-b.ts → src/report/planted-a.ts',
      'no-folder-cycles: src/aws → src/slack → src/aws',
      'no-folder-cycles: src/slack → src/aws → src/slack',
      // jobs/planted-rehearsal.ts imports the twin's entry too, which is allowed.
      'product-imports-only-the-twin: jobs/planted-rehearsal.ts → src/sim/index.ts',
      'sim-imports-product: src/sim/planted-oracle.ts → src/planning/planted-plan.ts',
      // The simulator's in-process tests may reach its insides, and hold to its no-product-code rule.
      'sim-imports-product: test/sim/unit/planted-sim-test.ts → src/planning/planted-plan.ts',
      'sim-only-through-entry: test/planted-use.ts → src/sim/kube/planted-internal.ts',
    ]);
    // Each says what to do, not only what is wrong.
    expect(stderr).toContain('import from @eks-upgrade-bot/sim (src/sim/index.ts), exporting what you need there');
    expect(stderr).toContain('imports only the twin runtime of the simulator, @eks-upgrade-bot/sim/twin (src/sim/twin/index.ts)');
    expect(stderr).toContain('9 import rule violations (the rules: .dependency-cruiser.cjs)');
  });

  it('fail the check on a client built outside an entry point, naming the file, the line and what to do', async () => {
    const { code, stderr } = await checkImports(FIXTURE);
    expect(code).toBe(1);
    const built = linesAfter(stderr, 'built outside an entry point: ');
    // The entry point's own `new Redis(` (src/cli/planted-entry.ts) and the comment that says `new Queue(` stay unflagged.
    expect(built.sort()).toEqual([
      'jobs/planted-queue.ts:7 constructs new Queue(…)',
      'jobs/planted-queue.ts:8 calls connectRedis(…)',
      'src/slack/planted-client.ts:4 constructs new WebClient(…)',
    ]);
    expect(stderr).toContain('create it in an entry point (src/main.ts, src/start-bot.ts, src/cli/, src/wiring/, src/demo/, src/playground/, bench/, bin/) and pass it in');
    expect(stderr).toContain('3 clients are built outside an entry point (the rule: construction in .dependency-cruiser.cjs)');
  });

  it('fail the check on Block Kit written outside src/report/blocks/, and leave the builders there alone', async () => {
    const { code, stderr } = await checkImports(FIXTURE);
    expect(code).toBe(1);
    const written = stderr.split('\n').filter((line) => line.startsWith('Block Kit outside src/report/blocks/: ')).map((line) => line.slice('Block Kit outside src/report/blocks/: '.length));
    // src/report/blocks/planted-section.ts writes the same section and stays unflagged.
    expect(written).toEqual([
      "src/slack/planted-blocks.ts:2 writes type: 'section'",
      "src/slack/planted-blocks.ts:2 writes type: 'mrkdwn'",
    ]);
    expect(stderr).toContain('build it with a function in src/report/blocks/');
    expect(stderr).toContain('2 Block Kit objects are written outside src/report/blocks/ (the rule: blockKit in .dependency-cruiser.cjs)');
  });

  it('fail the check on a source folder holding more than 20 files directly, and leave test folders alone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'folder-size-'));
    try {
      for (const [dir, count] of [['src/planning', 21], ['src/report', 20], ['test/unit', 25]] as const) {
        mkdirSync(join(root, dir), { recursive: true });
        for (let n = 1; n <= count; n += 1) writeFileSync(join(root, dir, `planted-${n}.ts`), `export const n${n} = ${n};\n`);
      }
      const { code, stderr } = await checkImports(root);
      expect(code).toBe(1);
      expect(stderr).toContain('folder too full: src/planning/ holds 21 files directly (at most 20)');
      expect(stderr).toContain('split it into folders named for what each part holds');
      expect(stderr).not.toContain('src/report/ holds');
      expect(stderr).not.toContain('test/unit/ holds');
      expect(stderr).toContain('1 folder holds more than 20 files directly');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
