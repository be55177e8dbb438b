import type { BenchContext, Figure } from './figures.js';
import { scaleUpgrade } from './scale-upgrade.js';

/**
 * P3 API economy: requests per Kubernetes verb+kind and per AWS operation during a Slack-driven 1.30 → 1.31 upgrade
 * of the generated `scale` cluster (default 500 Karpenter nodes in 5 NodePools). Goal: list + watch ≤ 10 per kind
 * over the whole drift; no per-node polling (gets of nodes/nodeclaims); DescribeUpdate/DescribeNodegroup no more
 * often than the poll interval.
 */
export async function p3ApiEconomy(ctx: BenchContext): Promise<Figure[]> {
  const run = await scaleUpgrade(ctx.redisUrl);
  const listWatch = new Map<string, number>();
  for (const [key, n] of Object.entries(run.counts.kube)) {
    const [verb, kind] = key.split(' ');
    if (verb === 'list' || verb === 'watch') listWatch.set(kind, (listWatch.get(kind) ?? 0) + n);
  }
  const worst = [...listWatch].sort((a, b) => b[1] - a[1]);
  const perNodeGets = Object.entries(run.counts.kube).filter(([key]) => /^get (nodes|nodeclaims)$/.test(key)).reduce((a, [, n]) => a + n, 0);
  const polls = ['eks DescribeUpdate', 'eks DescribeNodegroup'].map((op) => run.counts.aws[op] ?? 0);
  const pollBound = Math.ceil(run.wallMs / 1000 / run.pollSeconds) + 5;
  process.stdout.write(`P3 requests during the ${run.nodes}-node upgrade (${(run.wallMs / 1000).toFixed(0)} s, ${run.summary}):\n  kube: ${JSON.stringify(run.counts.kube)}\n  aws: ${JSON.stringify(run.counts.aws)}\n`);
  return [
    {
      id: 'P3',
      name: `API economy, ${run.nodes}-node Karpenter drift in ${run.pools} pools${run.mngNodes ? ` + ${run.mngNodes}-node MNG` : ''}`,
      value: `list+watch max ${worst[0]?.[1] ?? 0} (${worst.slice(0, 3).map(([k, n]) => `${k} ${n}`).join(', ')}); gets of nodes/nodeclaims ${perNodeGets}; DescribeUpdate ${polls[0]}, DescribeNodegroup ${polls[1]}`,
      goal: `≤ 10 list+watch per kind; Describe* ≤ 1 per ${run.pollSeconds} s poll (${pollBound})`,
      baseline: `${run.nodes} nodes (per-node polling would be ≥ ${run.nodes})`,
      met: (worst[0]?.[1] ?? 0) <= 10 && polls.every((n) => n <= pollBound),
    },
  ];
}
