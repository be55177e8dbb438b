import type { BenchContext, Figure } from './kit/figures.js';
import { scaleUpgrade } from './scale-upgrade.js';

/**
 * P3 API economy: requests per Kubernetes verb+kind and per AWS operation during a Slack-driven 1.30 → 1.31 upgrade
 * of the generated `scale` cluster (default 500 Karpenter nodes in 5 NodePools; BENCH_SCALE_MNG adds a managed node
 * group). Goal: list + watch ≤ 10 per kind over the whole drift (from the control plane's approval to the last
 * data-plane step's end), reconnects included; no per-node polling (gets of nodes/nodeclaims); DescribeUpdate and
 * DescribeNodegroup no more often than the poll interval. The whole upgrade's counts are printed beside it: they add
 * the plan, preflight and verify snapshots, which read every kind in 500-item pages.
 */
function listWatchPerKind(kube: Record<string, number>): Array<[string, number]> {
  const perKind = new Map<string, number>();
  for (const [key, n] of Object.entries(kube)) {
    const [verb, kind] = key.split(' ');
    if (verb === 'list' || verb === 'watch') perKind.set(kind, (perKind.get(kind) ?? 0) + n);
  }
  return [...perKind].sort((a, b) => b[1] - a[1]);
}

const top = (perKind: Array<[string, number]>) => `max ${perKind[0]?.[1] ?? 0} (${perKind.slice(0, 3).map(([k, n]) => `${k} ${n}`).join(', ')})`;

export async function p3ApiEconomy(ctx: BenchContext): Promise<Figure[]> {
  const run = await scaleUpgrade(ctx.redisUrl);
  const drift = listWatchPerKind(run.drift.kube);
  const whole = listWatchPerKind(run.counts.kube);
  const perNodeGets = Object.entries(run.counts.kube).filter(([key]) => /^get (nodes|nodeclaims)$/.test(key)).reduce((a, [, n]) => a + n, 0);
  const polls = ['eks DescribeUpdate', 'eks DescribeNodegroup'].map((op) => run.counts.aws[op] ?? 0);
  const pollBound = Math.ceil(run.wallMs / 1000 / run.pollSeconds) + 5;
  process.stdout.write(
    `P3 requests during the ${run.nodes}-node${run.mngNodes ? ` + ${run.mngNodes}-node MNG` : ''} upgrade (${(run.wallMs / 1000).toFixed(0)} s, drift ${(run.driftMs / 1000).toFixed(0)} s, ${run.summary}):\n` +
      `  drift kube: ${JSON.stringify(run.drift.kube)}\n  drift aws: ${JSON.stringify(run.drift.aws)}\n` +
      `  whole upgrade kube: ${JSON.stringify(run.counts.kube)}\n  whole upgrade aws: ${JSON.stringify(run.counts.aws)}\n`,
  );
  return [
    {
      id: 'P3',
      name: `API economy, ${run.nodes ? `${run.nodes}-node Karpenter drift in ${run.pools} pools` : ''}${run.nodes && run.mngNodes ? ' + ' : ''}${run.mngNodes ? `${run.mngNodes}-node MNG` : ''}`,
      value: `drift: list+watch ${top(drift)}; whole upgrade ${top(whole)}; gets of nodes/nodeclaims ${perNodeGets}; DescribeUpdate ${polls[0]}, DescribeNodegroup ${polls[1]} in ${(run.wallMs / 1000).toFixed(0)} s`,
      goal: `≤ 10 list+watch per kind over the drift; Describe* ≤ 1 per ${run.pollSeconds} s poll (${pollBound})`,
      baseline: `${run.nodes + run.mngNodes} nodes (per-node polling would be ≥ ${run.nodes + run.mngNodes})`,
      met: (drift[0]?.[1] ?? 0) <= 10 && perNodeGets === 0 && polls.every((n) => n <= pollBound),
    },
  ];
}
