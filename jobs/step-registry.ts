import type { Step, StepContext } from '../src/upgrade/step-context.js';
import type { StepKind } from '../src/upgrade/upgrade-job-data.js';
import type { JobControls } from '../src/upgrade/job-controls-store.js';
import { addonsStep } from './addons-step.js';
import { controlPlaneStep } from './control-plane-step.js';
import { fargateStep } from './fargate-step.js';
import { gateStep } from './gate-step.js';
import { managedNodegroupsStep } from './managed-nodegroups-step.js';
import { karpenterCleanup, karpenterControlHook, karpenterStep } from './karpenter-step.js';
import { preflightStep } from './preflight-step.js';
import { selfManagedStep } from './self-managed-step.js';
import { verifyStep } from './verify-step.js';

/**
 * Step kind → implementation. A kind without an implementation here is left out of new plans
 * (IMPLEMENTED_STEP_KINDS); a job planned by a newer build and resumed by an older one fails that step clearly.
 */
const STEPS: Partial<Record<StepKind, Step>> = {
  preflight: preflightStep,
  gate: gateStep,
  'control-plane': controlPlaneStep,
  addons: addonsStep,
  'managed-nodegroups': managedNodegroupsStep,
  karpenter: karpenterStep,
  'self-managed': selfManagedStep,
  fargate: fargateStep,
  verify: verifyStep,
};

export const IMPLEMENTED_STEP_KINDS = Object.keys(STEPS) as StepKind[];

/** What to put back when the job is aborted or fails while a step of this kind is current. */
const CLEANUPS: Partial<Record<StepKind, (ctx: StepContext) => Promise<void>>> = {
  karpenter: karpenterCleanup,
};

export function cleanupFor(kind: StepKind): ((ctx: StepContext) => Promise<void>) | undefined {
  return CLEANUPS[kind];
}

/**
 * What to do at once when the processor finds the job paused (or aborted) at its safe point while a step of this
 * kind is current, even though the step itself is parked: Karpenter sets its budgets to nodes: "0".
 */
const CONTROL_HOOKS: Partial<Record<StepKind, (ctx: StepContext, controls: JobControls) => Promise<void>>> = {
  karpenter: karpenterControlHook,
};

export function controlHookFor(kind: StepKind): ((ctx: StepContext, controls: JobControls) => Promise<void>) | undefined {
  return CONTROL_HOOKS[kind];
}

export function stepFor(kind: StepKind): Step {
  const step = STEPS[kind];
  if (step) return step;
  return async () => {
    throw Object.assign(new Error(`this version of the bot cannot run "${kind}" steps; deploy the version that planned the job`), { permanent: true });
  };
}
