import '../src/log/quiet-node-version-warning.js';
import { printRow } from './kit/figures.js';
import { writeFleetClustersFile } from './kit/fleet-clusters-file.js';
import { atLeastNoise, curveShape, growthExponents, marginalCosts, type GrowthPoint } from '../test/support/growth-shape.js';
import { measureCommand, resetSimRequests, simRequests, sumCounts, type CommandCost } from './kit/measure-command.js';
import { median, startSimProcess } from './kit/processes.js';

/**
 * Cost grows with the work (issue 30): requests, CPU (user + system) and peak RSS of the built CLI
 * (bin/eks-upgrade.js, GNU time) for `status --all` against fleet size (`fleet --clusters N`) and for one cluster's
 * `status` and `plan` against its node count (`scale --nodes N`), no added latency (the cost, not the wait). Each
 * curve's shape (test/support/growth-shape.ts) is the log-log slope k between neighbouring sizes (≤ 1: linear or better) and
 * the cost of one more unit between them (steady: linear; rising: super-linear, even when a fixed start-up cost keeps
 * k under 1). CPU is also shown beyond the CLI's `--help` (same run), the part of start-up every command pays. Sizes: BENCH_SCALE_FLEET (default 10,100,1000) and BENCH_SCALE_NODE_COUNTS (default
 * 50,500,2000; 0 skips a curve); each command runs BENCH_SCALE_REPEAT (3) times and its median is reported; 5–10 minutes on a 2-core machine, depending on its load. Run alone: `npx tsx bench/scale-cost.ts`, or
 * `BENCH=SCALE npm run bench` (builds dist/ first).
 */
const sizes = (raw: string | undefined, fallback: number[]) => (raw ? raw.split(',').map((s) => Number(s.trim())).filter((n) => n > 0) : fallback);
const FLEET = sizes(process.env.BENCH_SCALE_FLEET, [10, 100, 1000]);
const NODES = sizes(process.env.BENCH_SCALE_NODE_COUNTS, [50, 500, 2000]);
/** Below these an excess over linear is not told from noise: rusage counts CPU in 10 ms ticks and one command's CPU moves by ±50 ms between runs on a shared machine; RSS by a few MB. */
const CPU_NOISE_MS = 100;
/** Runs of each command (and of `--help`, twice that) whose median CPU and peak RSS are reported (BENCH_SCALE_REPEAT): one run's CPU is mostly its second's noise at small sizes. */
const REPEAT = Math.max(1, Number(process.env.BENCH_SCALE_REPEAT ?? 3));
const RSS_NOISE_MB = 10;
const AWS_ENV = { AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench' };

interface Sample {
  size: number;
  cost: CommandCost;
  aws: number;
  kube: number;
}

async function measureAgainstSim(simArgs: string[], commands: (file: string, cluster: string) => Record<string, string[]>): Promise<Record<string, Omit<Sample, 'size'>>> {
  const sim = await startSimProcess(simArgs);
  try {
    const { file, clusters } = await writeFleetClustersFile(sim.url, 'bench-scale-');
    const env = { ...AWS_ENV, AWS_ENDPOINT_URL: sim.url };
    const out: Record<string, Omit<Sample, 'size'>> = {};
    for (const [label, args] of Object.entries(commands(file, clusters[0].name))) {
      const runs: Array<Omit<Sample, 'size'>> = [];
      for (let run = 0; run < REPEAT; run++) {
        await resetSimRequests(sim.url);
        const cost = await measureCommand(['bin/eks-upgrade.js', ...args], env);
        if (cost.code !== 0 && cost.stdout.trim() === '') throw new Error(`${args.join(' ')} exited ${cost.code}: ${cost.stderr.slice(0, 500)}`);
        const counts = await simRequests(sim.url);
        runs.push({ cost, aws: sumCounts(counts.aws), kube: sumCounts(counts.kube) });
      }
      out[label] = medianRun(runs);
    }
    return out;
  } finally {
    await sim.stop();
  }
}

/** The run of median CPU, with the median peak RSS and wall time of all runs (requests are the same in every run). */
function medianRun<T extends { cost: CommandCost }>(runs: T[]): T {
  const byCpu = [...runs].sort((a, b) => a.cost.cpuMs - b.cost.cpuMs);
  const middle = byCpu[Math.floor(byCpu.length / 2)];
  return { ...middle, cost: { ...middle.cost, peakRssMb: median(runs.map((r) => r.cost.peakRssMb)), ms: median(runs.map((r) => r.cost.ms)) } };
}

function report(curve: string, unit: string, samples: Sample[], startupCpuMs: number): void {
  if (samples.length === 0) return;
  for (const s of samples) {
    printRow(`${curve} ${s.size} ${unit}`, {
      requests: `${s.aws}+${s.kube}`,
      cpu_ms: s.cost.cpuMs,
      beyond_startup_ms: s.cost.cpuMs - startupCpuMs,
      peak_rss_mb: s.cost.peakRssMb,
      wall_ms: s.cost.ms,
    });
  }
  // k is taken with costs under the noise floor read as the floor (atLeastNoise); the cost per unit from the costs as measured.
  const shape = (points: GrowthPoint[], noiseFloor = 0) =>
    `${curveShape(points, noiseFloor)} (k = ${growthExponents(atLeastNoise(points, noiseFloor)).map((k) => k.toFixed(2)).join(', ')}; per ${unit.replace(/s$/, '')}: ${marginalCosts(points).map((m) => m.toFixed(2)).join(', ')})`;
  process.stdout.write(
    `  shape — requests: ${shape(samples.map((s) => ({ size: s.size, cost: s.aws + s.kube })))}; CPU beyond start-up: ${shape(samples.map((s) => ({ size: s.size, cost: s.cost.cpuMs - startupCpuMs })), CPU_NOISE_MS)}; peak RSS: ${shape(samples.map((s) => ({ size: s.size, cost: s.cost.peakRssMb })), RSS_NOISE_MB)}\n`,
  );
}

async function main(): Promise<void> {
  await measureCommand(['bin/eks-upgrade.js', '--help'], AWS_ENV); // the first start after a build writes the V8 code cache
  const helps: Array<{ cost: CommandCost }> = [];
  for (let run = 0; run < 2 * REPEAT; run++) helps.push({ cost: await measureCommand(['bin/eks-upgrade.js', '--help'], AWS_ENV) });
  const startup = medianRun(helps).cost;
  printRow('CLI start-up (--help)', { cpu_ms: startup.cpuMs, peak_rss_mb: startup.peakRssMb, wall_ms: startup.ms });

  const fleet: Sample[] = [];
  for (const size of FLEET) {
    const { all } = await measureAgainstSim(['--scenario', 'fleet', '--clusters', String(size), '--speed', '60'], (file) => ({ all: ['status', '--all', '--clusters-file', file] }));
    fleet.push({ size, ...all });
  }
  report('status --all,', 'clusters', fleet, startup.cpuMs);

  const status: Sample[] = [];
  const plan: Sample[] = [];
  for (const size of NODES) {
    const read = await measureAgainstSim(['--scenario', 'scale', '--nodes', String(size), '--pools', '5', '--speed', '60'], (file, cluster) => ({
      status: ['status', cluster, '--clusters-file', file],
      plan: ['plan', cluster, '--clusters-file', file],
    }));
    status.push({ size, ...read.status });
    plan.push({ size, ...read.plan });
  }
  report('status <cluster>,', 'nodes', status, startup.cpuMs);
  report('plan <cluster>,', 'nodes', plan, startup.cpuMs);
}

main().catch((error) => {
  process.stderr.write(`scale-cost failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
