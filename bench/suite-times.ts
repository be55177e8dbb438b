import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from './kit/processes.js';

/**
 * `npm run test:times`: where the suite's time goes. Runs `npm test` (typecheck, check:imports, every vitest
 * project) with vitest's JSON reporter beside the usual one, then prints the wall time of the whole command, the
 * time vitest itself took, each project's file count and summed file time, and the ten slowest files.
 *
 *   npm run test:times                          # runs the suite (the whole of it: mind the machine's other users)
 *   npm run test:times -- --report vitest.json  # reads a report written by `vitest run --reporter=json --outputFile=…`
 *                                               # (and vitest.json.walls.json beside it, if FILE_WALL_OUT wrote one)
 *   npm run test:times -- --top 20              # more files
 *
 * The load average (os.loadavg) is printed before and after a run: a figure taken on a busy machine says so.
 */
interface JsonReport {
  startTime: number;
  success: boolean;
  numTotalTests: number;
  numFailedTests: number;
  testResults: Array<{ name: string; startTime: number; endTime: number; status: string }>;
}

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const top = Number(option('--top') ?? 10);
const given = option('--report');

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Each file's whole wall time (hooks included) is written beside the JSON report by this reporter. */
const WALL_REPORTER = './test/support/file-wall-reporter.ts';
const wallsOf = (report: string) => `${report}.walls.json`;

function readWalls(report: string): Map<string, number> | undefined {
  try {
    const rows = JSON.parse(readFileSync(wallsOf(report), 'utf8')) as Array<{ file: string; ms: number }>;
    return new Map(rows.map((row) => [repoPath(row.file), row.ms]));
  } catch {
    return undefined;
  }
}

async function runSuite(): Promise<{ report: string; wallMs: number; code: number | null }> {
  const report = join(mkdtempSync(join(tmpdir(), 'suite-times-')), 'vitest.json');
  console.log(`load average before: ${load()}`);
  const started = performance.now();
  const child = spawn('npm', ['test', '--', '--reporter=default', '--reporter=json', `--outputFile=${report}`, `--reporter=${WALL_REPORTER}`], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, FILE_WALL_OUT: wallsOf(report) },
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const wallMs = performance.now() - started;
  console.log(`load average after:  ${load()}`);
  return { report, wallMs, code };
}

/** unit, integration, e2e… by the folder under test/ (the simulator's own tests: by test/sim/unit, test/sim/integration). */
function projectOf(file: string): string {
  if (file.startsWith('test/sim/')) return file.split('/')[2] ?? 'other';
  return file.split('/')[1] ?? 'other';
}

const run = given ? undefined : await runSuite();
const report = JSON.parse(readFileSync(given ?? run!.report, 'utf8')) as JsonReport;
// Paths from the repository's root, whichever clone wrote the report.
const repoPath = (file: string) => /(test\/.*)$/.exec(file)?.[1] ?? relative(ROOT, file);
// A file's whole wall time where the wall reporter wrote it (FILE.walls.json beside the report); else its tests' time.
const walls = readWalls(given ?? run!.report);
const files = report.testResults.map((result) => ({ file: repoPath(result.name), ms: walls?.get(repoPath(result.name)) ?? result.endTime - result.startTime, status: result.status }));
const vitestMs = Math.max(...report.testResults.map((result) => result.endTime)) - report.startTime;

console.log('');
if (run) console.log(`npm test (typecheck + check:imports + vitest): ${seconds(run.wallMs)} wall, exit code ${run.code}`);
console.log(`vitest: ${seconds(vitestMs)} wall for ${files.length} files, ${report.numTotalTests} tests, ${report.numFailedTests} failed`);
const projects = new Map<string, { count: number; ms: number }>();
for (const { file, ms } of files) {
  const project = projects.get(projectOf(file)) ?? { count: 0, ms: 0 };
  projects.set(projectOf(file), { count: project.count + 1, ms: project.ms + ms });
}
for (const [name, { count, ms }] of [...projects].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(`  ${name.padEnd(12)} ${String(count).padStart(3)} files, ${seconds(ms).padStart(8)} summed`);
}
console.log(`\n${Math.min(top, files.length)} slowest files (${walls ? 'whole file: import, hooks and tests' : "tests only: no FILE.walls.json beside the report, so a file's beforeAll is not counted"}):`);
for (const { file, ms, status } of [...files].sort((a, b) => b.ms - a.ms).slice(0, top)) {
  console.log(`  ${seconds(ms).padStart(8)}  ${file}${status === 'passed' ? '' : `  (${status})`}`);
}
if (run && run.code !== 0) process.exitCode = run.code ?? 1;
