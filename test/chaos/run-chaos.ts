import '../../src/log/quiet-node-version-warning.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSlackHarness } from '../support/slack-app-harness.js';
import { fuzzInteractions, fuzzSlashCommands, type FuzzFigures } from './fuzz-slack.js';
import { runUpgradeUnderAwsFaults, type AwsFaultFigures } from './aws-faults.js';
import { runKillPoint, type KillFigures } from './kill-point.js';
import { runRedisRestart } from './redis-restart.js';
import { runSlackOutage } from './slack-outage.js';
import { KILL_POINTS } from './kill-points.js';

/**
 * `npm run chaos`: the reliability and security suite with figures. Kills the worker at each kill point, fuzzes the
 * Slack surface (10,000 slash commands and 10,000 interaction payloads, seeded), and runs the suite's test files
 * (authorization matrix, refused requests, Redis outage and shutdown, secrets scan, Slack outage, crash tests) —
 * then prints one table, every cell next to its goal. Exit code 1 when any cell misses its goal.
 *
 * Knobs: CHAOS_SECTIONS (comma-separated: kills, redis, slack, faults, fuzz, tests; default all), CHAOS_SLACK_OUTAGE_SECONDS
 * (default 300), CHAOS_POINTS (kill points by name,
 * comma-separated; default all), CHAOS_FUZZ_RUNS (default 10000), CHAOS_SEED (default 20261130).
 */
interface Row {
  point: string;
  runs: number | string;
  lostJobs: number | string;
  repeatedCalls: number | string;
  lostOrDuplicatedPosts: number | string;
  crashes: number | string;
  answeredUnder3s: string;
  notes: string;
  ok: boolean;
}

const seed = Number(process.env.CHAOS_SEED ?? 20261130);
const fuzzRuns = Number(process.env.CHAOS_FUZZ_RUNS ?? 10_000);
const only = process.env.CHAOS_POINTS?.split(',').map((name) => name.trim());
const sections = new Set((process.env.CHAOS_SECTIONS ?? 'kills,redis,slack,faults,fuzz,tests').split(',').map((name) => name.trim()));
const rows: Row[] = [];

function killRow(f: KillFigures): Row {
  const posts = f.duplicatedPosts.length + f.lostPosts.length;
  const ok = !f.error && f.completed && f.repeatedCalls.length === 0 && posts === 0 && f.budgetsRestored !== false;
  const notes = [f.error, ...f.repeatedCalls, ...f.duplicatedPosts.map((p) => `dup: ${p}`), ...f.lostPosts.map((p) => `lost: ${p}`), f.budgetsRestored === false ? 'budgets not restored' : '']
    .filter(Boolean)
    .join('; ');
  const standby = f.takeoverSeconds !== undefined ? `taken over in ${f.takeoverSeconds} s; ` : '';
  const acks = f.maxAckMs !== undefined ? `max ${Math.round(f.maxAckMs)} ms` : '—';
  const acked = f.maxAckMs === undefined || f.maxAckMs < 3_000;
  return { point: `kill: ${f.point}`, runs: 1, lostJobs: f.completed ? 0 : 1, repeatedCalls: f.repeatedCalls.length, lostOrDuplicatedPosts: posts, crashes: 0, answeredUnder3s: acks, notes: notes || `${standby}${f.seconds} s`, ok: ok && acked };
}

function faultRow(f: AwsFaultFigures): Row {
  const ok = !f.error && f.completed && f.repeatedCalls.length === 0 && f.stackTraces.length === 0;
  const notes = [f.error, ...f.repeatedCalls, ...f.stackTraces].filter(Boolean).join('; ') || `${f.injected.throttled} throttled, ${f.injected.errors} 5xx injected; ${f.seconds} s`;
  return {
    point: `AWS ${Math.round(f.throttleRate * 100)}% throttled + ${Math.round(f.errorRate * 100)}% 5xx (${f.scenario})`,
    runs: 1, lostJobs: f.completed ? 0 : 1, repeatedCalls: f.repeatedCalls.length, lostOrDuplicatedPosts: '—', crashes: 0, answeredUnder3s: '—', notes, ok,
  };
}

function fuzzRow(name: string, f: FuzzFigures): Row {
  const ok = f.halted === 0 && f.over3s === 0 && f.wrongAnswers.length === 0;
  return {
    point: name, runs: f.runs, lostJobs: '—', repeatedCalls: '—', lostOrDuplicatedPosts: '—', crashes: 0,
    answeredUnder3s: `${f.runs - f.halted - f.over3s}/${f.runs} (max ${Math.round(f.maxAckMs)} ms)`, notes: f.wrongAnswers.slice(0, 2).join('; ') || `seed ${seed}`, ok,
  };
}

async function fuzz(): Promise<void> {
  const harness = await startSlackHarness();
  try {
    const parent = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade of demo' });
    const job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', thread: { channel: 'C0DEMO', ts: parent.ts! } });
    harness.control.openGate(job.jobId, 'h1-control-plane', 1);
    rows.push(fuzzRow('fuzz: slash commands', await fuzzSlashCommands(harness, { runs: fuzzRuns, seed })));
    rows.push(fuzzRow('fuzz: interaction payloads', await fuzzInteractions(harness, { runs: fuzzRuns, seed, jobIds: [job.jobId] })));
  } catch (error) {
    rows.push({ point: 'fuzz', runs: 0, lostJobs: '—', repeatedCalls: '—', lostOrDuplicatedPosts: '—', crashes: 1, answeredUnder3s: '—', notes: (error as Error).message.split('\n')[0], ok: false });
  } finally {
    await harness.close();
  }
}

/** The suite's vitest files, each a row: pass/fail with its test counts. */
const TEST_FILES: Array<[string, string]> = [
  ['authorization matrix', 'test/integration/authorization-matrix.test.ts'],
  ['forged / stale / replayed / oversized requests', 'test/integration/slack-request-refusals.test.ts test/integration/slack-app-commands.test.ts'],
  ['unknown buttons', 'test/integration/slack-unknown-actions.test.ts'],
  ['Redis down: commands and SIGTERM', 'test/integration/redis-outage-process.test.ts'],
  ['secrets in logs', 'test/e2e/secrets-in-logs.test.ts'],
  ['Slack 429/5xx outage', 'test/e2e/upgrade-slack-outage.test.ts'],
  ['audit trail', 'test/integration/audit-trail.test.ts'],
  ['Redis Cluster: master failed over, master killed', 'test/e2e/redis-cluster-failover.test.ts'],
];

function testRows(): void {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
  for (const [name, files] of TEST_FILES) {
    const out = join(dir, `${rows.length}.json`);
    const run = spawnSync('npx', ['vitest', 'run', ...files.split(' '), '--reporter=json', `--outputFile=${out}`], { encoding: 'utf8', env: { ...process.env, REDIS_CLUSTER_KILL_MASTER: '1' } });
    let passed = 0;
    let failed = 0;
    try {
      const report = JSON.parse(readFileSync(out, 'utf8')) as { numPassedTests: number; numFailedTests: number };
      ({ numPassedTests: passed, numFailedTests: failed } = report);
    } catch {
      failed = 1;
    }
    const ok = run.status === 0 && failed === 0 && passed > 0;
    rows.push({ point: `tests: ${name}`, runs: passed + failed, lostJobs: '—', repeatedCalls: '—', lostOrDuplicatedPosts: '—', crashes: ok ? 0 : '?', answeredUnder3s: '—', notes: ok ? `${passed} passed` : `${failed} failed (${files})`, ok });
  }
}

function printTable(): void {
  const header = ['point', 'runs', 'lost jobs', 'repeated calls', 'lost/dup posts', 'crashes', 'answered < 3 s', 'goal', 'notes'];
  const body = rows.map((r) => [r.point, String(r.runs), String(r.lostJobs), String(r.repeatedCalls), String(r.lostOrDuplicatedPosts), String(r.crashes), r.answeredUnder3s, r.ok ? 'met' : 'MISSED', r.notes]);
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...body.map((row) => row[i].length))));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.slice(0, widths[i]).padEnd(widths[i])).join(' | ')} |`;
  console.log(`\nGoals: every kill point completes with 0 lost jobs, 0 repeated mutating calls, 0 lost or doubled posts, budgets restored;`);
  console.log('every fuzzed request answered (200, or 4xx for what Slack never sends) within 3 s with 0 crashes; every suite test passes.\n');
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of body) console.log(line(row));
}

const points = sections.has('kills') ? KILL_POINTS.filter((point) => !only || only.includes(point.name)) : [];
for (const point of points) {
  process.stderr.write(`chaos: kill point "${point.name}"…\n`);
  rows.push(killRow(await runKillPoint(point)));
}
if (sections.has('redis')) {
  process.stderr.write('chaos: Redis restarted (AOF) during the control-plane update…\n');
  const f = await runRedisRestart();
  const ok = !f.error && f.completed && f.repeatedCalls.length === 0 && f.duplicatedPosts.length === 0;
  const notes = [f.error, ...f.repeatedCalls, ...f.duplicatedPosts].filter(Boolean).join('; ') || `Redis down ${f.downSeconds} s; ${f.seconds} s`;
  rows.push({ point: 'Redis restart (appendonly yes)', runs: 1, lostJobs: f.completed ? 0 : 1, repeatedCalls: f.repeatedCalls.length, lostOrDuplicatedPosts: f.duplicatedPosts.length, crashes: 0, answeredUnder3s: '—', notes, ok });
}
if (sections.has('slack')) {
  const seconds = Number(process.env.CHAOS_SLACK_OUTAGE_SECONDS ?? 300);
  process.stderr.write(`chaos: Slack answering 429 then 503 for ${seconds} s mid-upgrade…\n`);
  const f = await runSlackOutage(seconds);
  const ok = !f.error && f.completed && f.awsDoneAfterSeconds !== undefined && f.duplicatedPosts.length === 0 && f.outOfOrder.length === 0;
  const notes = [f.error, ...f.duplicatedPosts.map((p) => `dup: ${p}`), ...f.outOfOrder.map((p) => `order: ${p}`)].filter(Boolean).join('; ')
    || `${f.refusedByFakeSlack} calls refused; the node group reached 1.31 ${f.awsDoneAfterSeconds} s into the outage`;
  rows.push({ point: `Slack 429/503 for ${seconds} s`, runs: 1, lostJobs: f.completed ? 0 : 1, repeatedCalls: '—', lostOrDuplicatedPosts: f.duplicatedPosts.length, crashes: 0, answeredUnder3s: '—', notes, ok });
}
if (sections.has('faults')) {
  process.stderr.write('chaos: the workshop upgrade with 20 % of AWS calls throttled and 5 % failing…\n');
  rows.push(faultRow(await runUpgradeUnderAwsFaults({ scenario: 'workshop', cluster: 'eksworkshop-eksctl', to: '1.26', throttleRate: 0.2, errorRate: 0.05 })));
}
if (sections.has('fuzz')) {
  process.stderr.write(`chaos: fuzzing ${fuzzRuns} slash commands and ${fuzzRuns} interactions (seed ${seed})…\n`);
  await fuzz();
}
if (sections.has('tests')) {
  process.stderr.write('chaos: suite test files…\n');
  testRows();
}
printTable();
process.exit(rows.every((row) => row.ok) ? 0 : 1);
