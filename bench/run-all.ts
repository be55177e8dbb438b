import '../src/log/quiet-node-version-warning.js';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { ensureRedis } from '../src/demo/ensure-redis.js';
import { type BenchContext, type Figure, notMeasured } from './kit/figures.js';
import { p0Startup } from './p0-startup.js';
import { p1Ack } from './p1-ack.js';
import { p2FleetStatus } from './p2-fleet-status.js';
import { p2kFleetStatus } from './p2k-fleet-status.js';
import { p3ApiEconomy } from './p3-api-economy.js';
import { p4EventThread } from './p4-event-thread.js';
import { p5Posts } from './p5-posts.js';
import { p6Overhead } from './p6-overhead.js';
import { p7OneWorker } from './p7-one-worker.js';
import { P8_GOAL, p8Rollout } from './p8-rollout.js';
import { p9Burst } from './p9-burst.js';
import { ROOT } from './kit/processes.js';

/**
 * `npm run bench` (BENCH=P0,P1 for a subset): builds dist/, then measures each figure of docs/benchmarks.md
 * with the bot, the simulator and a bare Bolt baseline each in a process of its own, and prints one
 * table: figure, goal, baseline from the same run, verdict.
 */
const BENCHES: Array<{ id: string; name: string; goal: string; run?: (ctx: BenchContext) => Promise<Figure[]>; missing?: string }> = [
  { id: 'P0', name: 'start-up', goal: 'CLI ≤ 1 s, /healthz ≤ 2 s', run: p0Startup },
  { id: 'P1', name: 'ack latency', goal: 'p99 ≤ 1.5 × bare Bolt', run: p1Ack },
  { id: 'P2', name: 'status --all, 100 clusters, +100 ms', goal: '≤ 2 s cold', run: () => p2FleetStatus() },
  { id: 'P2K', name: `status --all, ${process.env.BENCH_P2K_CLUSTERS ?? 1000} clusters, +100 ms`, goal: '≤ 5 s beyond start-up, RSS ≤ 400 MB', run: () => p2kFleetStatus() },
  { id: 'P3', name: 'API economy, 500-node drift / 200-node MNG', goal: '≤ 10 list+watch per kind', run: p3ApiEconomy },
  { id: 'P7', name: '50 upgrades, one worker', goal: 'RSS ≤ 300 MB, loop p99 ≤ 100 ms', run: p7OneWorker },
  { id: 'P5', name: 'posts per upgrade', goal: '≤ 30 + 1 per 50 nodes', run: p5Posts },
  { id: 'P4', name: 'event → thread p95', goal: '≤ 2 s', run: p4EventThread },
  { id: 'P6', name: 'overhead / simulated waits', goal: '≤ 1.05', run: p6Overhead },
  { id: 'P8', name: `rollout of ${process.env.P8_CLUSTERS ?? 500} clusters, one worker`, goal: P8_GOAL, run: p8Rollout },
  { id: 'P9', name: 'burst of 200 upgrades, 2 web + 4 workers, one killed', goal: 'every job once, every thread correct, a killed worker loses nothing', run: p9Burst },
];

/** Scripts that print their own rows (run after the table; BENCH=REHEARSE or SIMIDLE picks one). */
const SCRIPTS = [
  { id: 'REHEARSE', file: 'bench/rehearse-accuracy.ts', what: 'rehearsal accuracy: predicted vs actual step durations (about 3–6 min)' },
  { id: 'SCALE', file: 'bench/scale-cost.ts', what: 'cost against the work: status --all at 10/100/1,000 clusters, status and plan at 50/500/2,000 nodes (BENCH_SCALE_FLEET, BENCH_SCALE_NODE_COUNTS, BENCH_SCALE_REPEAT; about 5–10 min)' },
  { id: 'SIMIDLE', file: 'bench/sim-karpenter-idle.ts', what: "the simulator's idle CPU at high speed" },
  { id: 'GUARDS', file: 'bench/guard-breach.ts', what: 'guards (issue 29): breach to stop, terminations after the stop, reads per interval (about 1 min)' },
];

function table(figures: Figure[]): string {
  const rows = [['', 'figure', 'measured', 'goal', 'baseline (same run)', 'verdict'], ...figures.map((f) => [f.id, f.name, f.value, f.goal, f.baseline, f.met === undefined ? '—' : f.met ? 'meets' : 'MISSES'])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function main(): Promise<void> {
  const wanted = process.env.BENCH ? new Set(process.env.BENCH.split(',').map((s) => s.trim().toUpperCase())) : undefined;
  process.stdout.write('building dist/ (npm run build)…\n');
  execFileSync(process.execPath, ['bin/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const redis = await ensureRedis();
  const figures: Figure[] = [];
  try {
    for (const bench of BENCHES) {
      if (wanted && !wanted.has(bench.id)) continue;
      if (!bench.run) {
        figures.push(notMeasured(bench.id, bench.name, bench.goal, bench.missing ?? ''));
        continue;
      }
      process.stdout.write(`${bench.id} ${bench.name}…\n`);
      try {
        figures.push(...(await bench.run({ redisUrl: redis.url })));
      } catch (error) {
        process.stderr.write(`${bench.id} failed: ${(error as Error).stack}\n`);
        figures.push(notMeasured(bench.id, bench.name, bench.goal, `the run failed: ${(error as Error).message.split('\n')[0]}`));
      }
    }
    process.stdout.write(`\nNode ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})\n${table(figures)}\n`);
    for (const script of SCRIPTS) {
      if (wanted && !wanted.has(script.id)) continue;
      process.stdout.write(`\n${script.id}: ${script.what}\n`);
      try {
        execFileSync(process.execPath, ['--import', 'tsx', script.file], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, REDIS_URL: redis.url } });
      } catch (error) {
        process.stderr.write(`${script.id} failed: ${(error as Error).message.split('\n')[0]}\n`);
      }
    }
  } finally {
    await redis.stop();
  }
  process.exitCode = figures.some((f) => f.met === false) ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(2);
});
