import { type Figure, ms } from './kit/figures.js';
import { writeFleetClustersFile } from './kit/fleet-clusters-file.js';
import { startSimProcess, timeCommand } from './kit/processes.js';

/**
 * P2 fleet status. `npx eks-upgrade status --all` over 100 simulated clusters (every 10th unreachable, every 13th
 * FAILED) with 100 ms added to every AWS and Kubernetes answer, in a fresh process each time (cold), the simulator at
 * a lower CPU priority than the command (SIM_NICE in kit/processes.ts). Baseline from
 * the same run: `status` of one cluster under the same latency — one dependency chain of calls, the bound the fleet
 * should approach. Goal ≤ 2 s.
 */
const CLUSTERS = Number(process.env.BENCH_P2_CLUSTERS ?? 100);

export async function p2FleetStatus(): Promise<Figure[]> {
  const sim = await startSimProcess(['--scenario', 'fleet', '--clusters', String(CLUSTERS), '--speed', '60', '--latency-ms', '100'], { yieldCpu: true });
  try {
    const { file, clusters } = await writeFleetClustersFile(sim.url, 'bench-p2-');
    const state = { clusters };
    const env = { AWS_ENDPOINT_URL: sim.url, AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', ...(process.env.STATUS_CONCURRENCY ? { STATUS_CONCURRENCY: process.env.STATUS_CONCURRENCY } : {}) };
    const first = state.clusters[0].name;
    const one = await timeCommand(['bin/eks-upgrade.js', 'status', first, '--clusters-file', file], env);
    if (one.code !== 0) throw new Error(`status ${first} exited ${one.code}: ${one.stdout}${one.stderr}`);
    await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    const all = await timeCommand(['bin/eks-upgrade.js', 'status', '--all', '--clusters-file', file], env);
    const counts = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { aws: Record<string, number>; kube: Record<string, number> };
    const sum = (area: Record<string, number>) => Object.values(area).reduce((a, b) => a + b, 0);
    const names = new Set(state.clusters.map((c) => c.name));
    const rows = all.stdout.split('\n').filter((line) => names.has(line.split(/\s+/)[0])).length;
    return [
      {
        id: 'P2',
        name: `status --all, ${CLUSTERS} clusters, +100 ms per AWS/kube call, cold (${rows} rows)`,
        value: `${ms(all.ms)} (${sum(counts.aws)} AWS + ${sum(counts.kube)} Kubernetes requests)`,
        goal: '≤ 2000 ms',
        baseline: `status of 1 cluster, same latency: ${ms(one.ms)}`,
        met: all.ms <= 2000 && rows >= CLUSTERS,
      },
    ];
  } finally {
    await sim.stop();
  }
}
