import { formatMinor, hopsBetween, parseMinor, compareMinor, minorDistance } from '../../domain/minor-version.js';
import { HOP_STEP_ORDER, type PlannedStep, type StepKind, type UpgradePlan } from '../../ports/upgrade-plan.js';
import { DIRECTIONS, type DirectionName } from './direction.js';

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

function idFor(kind: StepKind, hop: number): string {
  return kind === 'gate' ? `h${hop}-gate-control-plane` : `h${hop}-${kind}`;
}

export interface JobStepsRequest {
  cluster: string;
  from: string;
  to: string;
  /** An upgrade (default) or a rollback job (issue 10). */
  direction?: DirectionName;
  /** The plan `start` read from the cluster; without it every kind runs (see above). */
  plan?: UpgradePlan;
  /** The kinds this build runs (e.g. only the control plane for a demo). */
  kinds?: readonly StepKind[];
}

/** The hops of a job: the minors after `from` up to `to`; a rollback's one, exactly one minor back. */
function routeOf(direction: DirectionName, from: string, to: string): string[] {
  if (direction === 'upgrade') return hopsOf(from, to);
  const fromMinor = parseMinor(from);
  const toMinor = parseMinor(to);
  if (!fromMinor || !toMinor) throw new PlanError(`"${!fromMinor ? from : to}" is not a Kubernetes minor version like 1.30`);
  if (minorDistance(toMinor, fromMinor) !== 1) {
    throw new PlanError(`a rollback goes back exactly one minor; ${from} → ${to} is not one`);
  }
  return [to];
}

/**
 * The job's steps, for either direction: per hop, the kinds in the direction's order (a rollback: one "hop" from the
 * cluster's version back one minor — data plane, add-ons, gate, control plane, Fargate, verify), titled in its words.
 * Step ids keep one shape (h1-…) in both, so a rollback's control-plane step finds a forced preflight where it looks
 * for an upgrade's. With a plan the steps carry its actions and kinds without lines are left out; a rollback has no
 * Karpenter budget hold (its Karpenter step sets the budget itself, before the control plane moves).
 */
export function jobSteps(request: JobStepsRequest): { hops: string[]; steps: PlannedStep[] } {
  const { cluster, from, to, plan } = request;
  const direction = DIRECTIONS[request.direction ?? 'upgrade'];
  const hops = routeOf(direction.name, from, to);
  if (plan && (plan.from !== from || plan.to !== to)) {
    throw new PlanError(`the ${direction.name === 'rollback' ? 'rollback plan' : 'plan'} goes ${plan.from} → ${plan.to}, but the job ${from} → ${to}; plan again`);
  }
  const wanted = new Set(request.kinds ?? direction.order);
  const steps: PlannedStep[] = [];
  hops.forEach((hopTo, index) => {
    const hop = index + 1;
    const hopFrom = index === 0 ? from : hops[index - 1];
    const lines = plan?.hops[index]?.steps;
    for (const kind of direction.order) {
      if (!wanted.has(kind)) continue;
      const ofKind = lines?.filter((line) => line.kind === kind);
      if (ofKind && ofKind.length === 0) continue;
      // The budget hold is handed over to (and released by) the hop's Karpenter step; without that step nothing would
      // ever put the NodePools' own budgets back.
      if (kind === 'karpenter-budget' && (!wanted.has('karpenter') || (lines && !lines.some((line) => line.kind === 'karpenter')))) continue;
      const title = direction.jobStepTitle(kind, cluster, hopTo);
      const step: PlannedStep = { id: idFor(kind, hop), kind, hop, from: hopFrom, to: hopTo, title: hops.length > 1 ? `hop ${hop}: ${title}` : title };
      if (ofKind) step.actions = ofKind.flatMap((line) => line.actions);
      steps.push(step);
    }
  });
  return { hops, steps };
}
