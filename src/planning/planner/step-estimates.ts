/**
 * Rough durations, in minutes, from the reference facts: a control-plane update takes about 10 minutes; a managed
 * node group replaces maxUnavailable nodes per batch, each batch a launch (~3 min) plus a drain, the 60 s wait and
 * termination (~3 min), with a scale-up and scale-down around it; Karpenter replaces budget-many nodes at a time,
 * ~4 min each (launch → registered → initialized, then drain); an add-on update settles in 1–2 minutes.
 */
export const MINUTES = {
  preflight: 1,
  controlPlane: 12,
  addon: 2,
  vpcCniStep: 3,
  nodegroupBatch: 6,
  nodegroupOverhead: 5,
  blueGreenCreate: 8,
  blueGreenPerNode: 2,
  karpenterPerNode: 4,
  fargateRestart: 4,
  selfManagedPerNode: 8,
  verify: 2,
} as const;

/** Nodes replaced per batch by a managed node group update (updateConfig; default 1). */
export function batchSize(nodes: number, maxUnavailable?: number, maxUnavailablePercentage?: number): number {
  if (maxUnavailable && maxUnavailable > 0) return maxUnavailable;
  if (maxUnavailablePercentage && maxUnavailablePercentage > 0) return Math.max(1, Math.floor((nodes * maxUnavailablePercentage) / 100));
  return 1;
}

export function inPlaceMinutes(nodes: number, perBatch: number): number {
  return MINUTES.nodegroupOverhead + Math.max(1, Math.ceil(nodes / perBatch)) * MINUTES.nodegroupBatch;
}

export function blueGreenMinutes(nodes: number): number {
  return MINUTES.blueGreenCreate + Math.max(1, nodes) * MINUTES.blueGreenPerNode;
}

/** Nodes Karpenter may disrupt at once under a budget like "1" or "10%" (percentages round up). */
export function budgetParallelism(budget: string, nodes: number): number {
  const percent = /^(\d+)%$/.exec(budget.trim());
  if (percent) return Math.max(1, Math.ceil((nodes * Number(percent[1])) / 100));
  return Math.max(1, Number(budget) || 1);
}

export function driftMinutes(nodes: number, budget: string): number {
  if (nodes === 0) return 2;
  return Math.ceil(nodes / budgetParallelism(budget, nodes)) * MINUTES.karpenterPerNode;
}
