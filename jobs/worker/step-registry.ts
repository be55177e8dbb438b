import type { Step, StepContext } from '../engine/step-context.js';
import type { StepKind } from '../../src/ports/upgrade-plan.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import { addonsStep } from '../steps/addons/addons-step.js';
import { controlPlaneStep } from '../steps/control-plane/control-plane-step.js';
import { fargateStep } from '../steps/fargate/fargate-step.js';
import { controlPlaneGateStep } from '../steps/control-plane/control-plane-gate-step.js';
import { managedNodegroupsStep } from '../steps/nodegroups/managed-nodegroups-step.js';
import { applyHolds, restoreHolds } from '../steps/karpenter/karpenter-budget-hold.js';
import { karpenterBudgetStep } from '../steps/karpenter/karpenter-budget-step.js';
import { withAliasRestore } from '../steps/karpenter/karpenter-alias-restore.js';
import { karpenterCleanup, karpenterControlHook, karpenterStep } from '../steps/karpenter/karpenter-step.js';
import { preflightStep } from '../steps/preflight/preflight-step.js';
import { withPlannedGates } from '../engine/planned-gates.js';
import { rollbackGateStep, rollbackPreflightStep } from './rollback-steps.js';
import { selfManagedCleanup, selfManagedStep } from '../steps/self-managed/self-managed-step.js';
import { verifyStep } from '../steps/verify/verify-step.js';

/**
 * Step kind → implementation. A kind without an implementation here is left out of new plans
 * (IMPLEMENTED_STEP_KINDS); a job planned by a newer build and resumed by an older one fails that step clearly.
 */
const STEPS: Partial<Record<StepKind, Step>> = {
  preflight: (ctx) => (ctx.data.rollback ? rollbackPreflightStep(ctx) : preflightStep(ctx)),
  gate: (ctx) => (ctx.data.rollback ? rollbackGateStep(ctx) : controlPlaneGateStep(ctx)),
  'karpenter-budget': karpenterBudgetStep,
  'control-plane': withBudgetHold(withAliasRestore(controlPlaneStep)),
  addons: withBudgetHold(addonsStep),
  // The data-plane steps ask the gates the approved plan announces before they act (planned-gates.ts); managed node
  // groups ask theirs one group at a time, as each group's turn comes.
  'managed-nodegroups': withBudgetHold(managedNodegroupsStep),
  karpenter: withPlannedGates(karpenterStep),
  'self-managed': withPlannedGates(selfManagedStep),
  fargate: withPlannedGates(fargateStep),
  verify: verifyStep,
};

export const IMPLEMENTED_STEP_KINDS = Object.keys(STEPS) as StepKind[];

/**
 * The steps that run between a hop's 'karpenter-budget' and 'karpenter' steps, while NodePools are held at the
 * upgrade budget: each run first brings the held pools in line with the controls — after a Resume, back from
 * nodes "0" to the upgrade budget. Best effort: the Karpenter step applies the budgets again anyway, and a flaky
 * Kubernetes API must not fail a control-plane upgrade.
 */
function withBudgetHold(step: Step): Step {
  return async (ctx) => {
    try {
      await applyHolds(ctx, await ctx.controls());
    } catch (error) {
      ctx.logger.warn({ err: error }, 'bringing the held Karpenter budgets in line with the controls failed; the Karpenter step applies them again');
    }
    return step(ctx);
  };
}

/** What to put back when the job is aborted or fails while a step of this kind is current. */
const CLEANUPS: Partial<Record<StepKind, (ctx: StepContext) => Promise<void>>> = {
  karpenter: karpenterCleanup,
  'self-managed': selfManagedCleanup,
};

/** The step's own cleanup, then the budget holds still active (they outlive their step until Karpenter adopts them). */
export function cleanupFor(kind: StepKind): ((ctx: StepContext) => Promise<void>) | undefined {
  const own = CLEANUPS[kind];
  return async (ctx) => {
    try {
      await own?.(ctx);
    } finally {
      await restoreHolds(ctx);
    }
  };
}

/**
 * What to do at once when the processor finds the job paused (or aborted) at its safe point while a step of this
 * kind is current, even though the step itself is parked: Karpenter sets its budgets to nodes: "0".
 */
const CONTROL_HOOKS: Partial<Record<StepKind, (ctx: StepContext, controls: JobControls) => Promise<void>>> = {
  karpenter: karpenterControlHook,
};

export function controlHookFor(kind: StepKind): ((ctx: StepContext, controls: JobControls) => Promise<void>) | undefined {
  const own = CONTROL_HOOKS[kind];
  return async (ctx, controls) => {
    await own?.(ctx, controls);
    // NodePools held since before the control plane: Pause holds them too, whatever step is current.
    await applyHolds(ctx, controls);
  };
}

export function stepFor(kind: StepKind): Step {
  const step = STEPS[kind];
  if (step) return step;
  return async () => {
    throw Object.assign(new Error(`this version of the bot cannot run "${kind}" steps; deploy the version that planned the job`), { permanent: true });
  };
}
