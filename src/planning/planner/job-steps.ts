import { formatMinor, hopsBetween, parseMinor, compareMinor, minorDistance } from '../../domain/minor-version.js';
import { HOP_STEP_ORDER, ROLLBACK_STEP_ORDER, type PlannedStep, type StepKind, type UpgradePlan } from '../../ports/upgrade-plan.js';

/**
 * The upgrade job's steps, from the plan the approver read: per hop, the plan's lines grouped by kind in
 * HOP_STEP_ORDER, each step carrying the per-resource actions of its lines. Pure. The steps are fixed when the job
 * starts and stored in job.data, so a resumed job runs the same steps in the same order even if the code that plans
 * them changes meanwhile. Without a plan (a job started from the versions alone, or written by a worker before
 * plans were stored) every kind runs and each step decides from the world.
 */
export { HOP_STEP_ORDER };

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

export interface JobStepsRequest {
  cluster: string;
  from: string;
  to: string;
  /** The plan `start` read from the cluster; without it every kind runs (see above). */
  plan?: UpgradePlan;
  /** The kinds this build runs (e.g. only the control plane for a demo). */
  kinds?: readonly StepKind[];
}

export function jobSteps(request: JobStepsRequest): { hops: string[]; steps: PlannedStep[] } {
  const { cluster, from, to, plan } = request;
  const hops = hopsOf(from, to);
  if (plan && (plan.from !== from || plan.to !== to)) {
    throw new PlanError(`the plan goes ${plan.from} → ${plan.to}, but the job ${from} → ${to}; plan again`);
  }
  const wanted = new Set(request.kinds ?? HOP_STEP_ORDER);
  const steps: PlannedStep[] = [];
  hops.forEach((hopTo, index) => {
    const hop = index + 1;
    const hopFrom = index === 0 ? from : hops[index - 1];
    const lines = plan?.hops[index]?.steps;
    for (const kind of HOP_STEP_ORDER) {
      if (!wanted.has(kind)) continue;
      const ofKind = lines?.filter((line) => line.kind === kind);
      if (ofKind && ofKind.length === 0) continue;
      // The budget hold is handed over to (and released by) the hop's Karpenter step; without that step nothing would
      // ever put the NodePools' own budgets back.
      if (kind === 'karpenter-budget' && (!wanted.has('karpenter') || (lines && !lines.some((line) => line.kind === 'karpenter')))) continue;
      const title = titleFor(kind, cluster, hopTo);
      const step: PlannedStep = { id: idFor(kind, hop), kind, hop, from: hopFrom, to: hopTo, title: hops.length > 1 ? `hop ${hop}: ${title}` : title };
      if (ofKind) step.actions = ofKind.flatMap((line) => line.actions);
      steps.push(step);
    }
  });
  return { hops, steps };
}

function rollbackTitleFor(kind: StepKind, cluster: string, to: string): string {
  switch (kind) {
    case 'preflight':
      return `rollback preflight for ${to}`;
    case 'gate':
      return `approval: roll the control plane of ${cluster} back to ${to}`;
    case 'control-plane':
      return `control plane back to ${to}`;
    case 'addons':
      return `add-ons not compatible with ${to} back to its defaults`;
    case 'managed-nodegroups':
      return `managed node groups back to ${to}`;
    case 'karpenter':
      return `Karpenter nodes back to ${to}`;
    case 'self-managed':
      return `self-managed node groups back to ${to}`;
    case 'fargate':
      return `Fargate workloads restarted at ${to}`;
    default:
      return `verify ${to}`;
  }
}

/**
 * The rollback job's steps (issue 10): one "hop" from the cluster's version back one minor, in ROLLBACK_STEP_ORDER
 * (data plane, add-ons, gate, control plane, Fargate, verify). Step ids keep the upgrade's shape (h1-…), so the
 * control-plane step finds a forced preflight where it looks for an upgrade's. With a rollback plan the steps carry
 * its actions and kinds without lines are left out; the Karpenter budget hold of an upgrade has no place here
 * (the Karpenter step sets the budget itself, before the control plane moves).
 */
export function rollbackJobSteps(request: JobStepsRequest): { hops: string[]; steps: PlannedStep[] } {
  const { cluster, from, to, plan } = request;
  const fromMinor = parseMinor(from);
  const toMinor = parseMinor(to);
  if (!fromMinor || !toMinor) throw new PlanError(`"${!fromMinor ? from : to}" is not a Kubernetes minor version like 1.30`);
  if (minorDistance(toMinor, fromMinor) !== 1) {
    throw new PlanError(`a rollback goes back exactly one minor; ${from} → ${to} is not one`);
  }
  if (plan && (plan.from !== from || plan.to !== to)) {
    throw new PlanError(`the rollback plan goes ${plan.from} → ${plan.to}, but the job ${from} → ${to}; plan again`);
  }
  const wanted = new Set(request.kinds ?? ROLLBACK_STEP_ORDER);
  const lines = plan?.hops[0]?.steps;
  const steps: PlannedStep[] = [];
  for (const kind of ROLLBACK_STEP_ORDER) {
    if (!wanted.has(kind) || kind === 'karpenter-budget') continue;
    const ofKind = lines?.filter((line) => line.kind === kind);
    if (ofKind && ofKind.length === 0) continue;
    const step: PlannedStep = { id: idFor(kind, 1), kind, hop: 1, from, to, title: rollbackTitleFor(kind, cluster, to) };
    if (ofKind) step.actions = ofKind.flatMap((line) => line.actions);
    steps.push(step);
  }
  return { hops: [to], steps };
}
