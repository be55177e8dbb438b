import { formatMinor, hopsBetween, parseMinor, compareMinor } from '../domain/minor-version.js';
import type { PlannedStep, StepKind } from './upgrade-job-data.js';

/**
 * The ordered steps of an upgrade job, hop by hop (EKS moves the control plane one minor at a time). Pure: the
 * plan is fixed when the job starts and stored in job.data, so a resumed job runs the same steps in the same order
 * even if the code that plans them changes meanwhile.
 */

/** Step kinds the engine runs, in the order they run within a hop. */
export const HOP_STEP_ORDER: readonly StepKind[] = [
  'preflight',
  'gate',
  'karpenter-budget',
  'control-plane',
  'addons',
  'managed-nodegroups',
  'karpenter',
  'self-managed',
  'fargate',
  'verify',
];

/** The kinds this build of the engine implements (a kind missing here is left out of new plans). */
export const DEFAULT_STEP_KINDS: readonly StepKind[] = HOP_STEP_ORDER;

export class PlanError extends Error {
  readonly code = 'plan_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** The minors after `from` up to `to`, e.g. 1.30 → 1.32 gives ["1.31", "1.32"]. Throws PlanError for bad input. */
export function hopsOf(from: string, to: string): string[] {
  const fromMinor = parseMinor(from);
  const toMinor = parseMinor(to);
  if (!fromMinor) throw new PlanError(`"${from}" is not a Kubernetes minor version like 1.30`);
  if (!toMinor) throw new PlanError(`"${to}" is not a Kubernetes minor version like 1.31`);
  if (compareMinor(toMinor, fromMinor) <= 0) {
    throw new PlanError(`the target ${to} is not newer than the current version ${from}; EKS upgrades only move forward`);
  }
  return hopsBetween(fromMinor, toMinor).map(formatMinor);
}

function titleFor(kind: StepKind, cluster: string, to: string): string {
  switch (kind) {
    case 'preflight':
      return `preflight for ${to}`;
    case 'gate':
      return `approval: control plane of ${cluster} to ${to}`;
    case 'karpenter-budget':
      return `Karpenter disruption budget for ${to}`;
    case 'control-plane':
      return `control plane to ${to}`;
    case 'addons':
      return `add-ons for ${to}`;
    case 'managed-nodegroups':
      return `managed node groups to ${to}`;
    case 'karpenter':
      return `Karpenter nodes to ${to}`;
    case 'self-managed':
      return `self-managed node groups to ${to}`;
    case 'fargate':
      return `Fargate workloads to ${to}`;
    case 'verify':
      return `verify ${to}`;
  }
}

function idFor(kind: StepKind, hop: number): string {
  return kind === 'gate' ? `h${hop}-gate-control-plane` : `h${hop}-${kind}`;
}

export function planUpgradeSteps(
  cluster: string,
  from: string,
  to: string,
  kinds: readonly StepKind[] = DEFAULT_STEP_KINDS,
): { hops: string[]; steps: PlannedStep[] } {
  const hops = hopsOf(from, to);
  const wanted = new Set(kinds);
  // The budget hold is handed over to (and released by) the hop's Karpenter step; without that step nothing would
  // ever put the NodePools' own budgets back.
  if (!wanted.has('karpenter')) wanted.delete('karpenter-budget');
  const steps: PlannedStep[] = [];
  hops.forEach((hopTo, index) => {
    const hop = index + 1;
    const hopFrom = index === 0 ? from : hops[index - 1];
    for (const kind of HOP_STEP_ORDER) {
      if (!wanted.has(kind)) continue;
      const title = titleFor(kind, cluster, hopTo);
      steps.push({ id: idFor(kind, hop), kind, hop, from: hopFrom, to: hopTo, title: hops.length > 1 ? `hop ${hop}: ${title}` : title });
    }
  });
  return { hops, steps };
}
