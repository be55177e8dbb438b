import type { StepContext } from '../../engine/step-context.js';
import type { PlannedStep } from '../../../src/ports/upgrade-plan.js';
import { applyBudgets, type Controls } from './apply-karpenter-changes.js';
import type { Budget } from '../../../src/planning/workloads/disruption-budget.js';
import type { KarpenterStepState } from './karpenter-step-state.js';
import { acts } from '../../engine/execute-commands.js';

/**
 * The budget hold: NodePools whose EC2NodeClass follows the cluster version (an `al2023@latest` alias) drift as soon
 * as the control plane moves, so the 'karpenter-budget' step sets their upgrade budget before it does. The hold is
 * the budget step's own step state (a KarpenterStepState, originals saved before the first patch) and stays
 * "active" until the hop's Karpenter step adopts it: meanwhile, whatever step is current (control plane, add-ons,
 * managed node groups), Pause sets those pools to nodes "0", Resume puts the upgrade budget back, and an abort or
 * failure restores the originals. The Karpenter step takes the originals from the hold (the pools already show our
 * budget) and restores itself any held pool it has nothing left to do for.
 */
export interface BudgetHoldState extends KarpenterStepState {
  /** The Karpenter step that took the held pools over; from then on the hold does nothing. */
  adoptedBy?: string;
}

/** Every budget step of the plan whose hold is still active (saved, not adopted, some pool not restored). */
export function activeHolds(ctx: StepContext): Array<{ step: PlannedStep; state: BudgetHoldState }> {
  if (!acts(ctx)) return [];
  return ctx.data.steps.flatMap((step) => {
    if (step.kind !== 'karpenter-budget') return [];
    const state = readHold(ctx, step);
    if (!state || state.adoptedBy) return [];
    return Object.values(state.pools).some((pool) => !pool.restored) ? [{ step, state }] : [];
  });
}

function readHold(ctx: StepContext, step: PlannedStep): BudgetHoldState | undefined {
  const saved = ctx.data.stepState[step.id];
  if (!saved?.pools || typeof saved.startedAt !== 'number') return undefined;
  return structuredClone(saved) as unknown as BudgetHoldState;
}

/**
 * A StepContext whose step state and timeline keys are the budget step's, so applyBudgets records its progress
 * (restoring, restored) in the hold whichever step is current. Saving goes through the current step's
 * saveStepState, which writes the whole job.data, the hold included.
 */
export function holdContext(ctx: StepContext, hold: PlannedStep): StepContext {
  if (ctx.step.id === hold.id) return ctx;
  const stored = () => (ctx.data.stepState[hold.id] ??= {});
  return {
    ...ctx,
    step: hold,
    stepState: <T extends Record<string, unknown>>() => structuredClone(stored()) as Partial<T>,
    async saveStepState(patch) {
      Object.assign(stored(), structuredClone(patch));
      await ctx.saveStepState({});
    },
    emit: (suffix, event) => ctx.emitKeyed(`${ctx.data.jobId}:${hold.id}:${suffix}`, `${ctx.data.jobId}:${hold.id}:${suffix}`, event),
  };
}

/** Pause → nodes "0", resume → the upgrade budget, abort → the originals, on every active hold. Idempotent. */
export async function applyHolds(ctx: StepContext, controls: Controls): Promise<void> {
  const holds = activeHolds(ctx);
  if (holds.length === 0) return;
  for (const { step, state } of holds) await applyBudgets(holdContext(ctx, step), state, controls);
}

/** For cleanup after an abort or a failure: every held pool gets its original budget back. */
export async function restoreHolds(ctx: StepContext): Promise<void> {
  const holds = activeHolds(ctx);
  if (holds.length === 0) return;
  for (const { step, state } of holds) await applyBudgets(holdContext(ctx, step), state, { paused: false, pauseSeq: 0 }, () => true);
}

/** The hold of the Karpenter step's own hop, if it is still active. */
function holdOfHop(ctx: StepContext): { step: PlannedStep; state: BudgetHoldState } | undefined {
  return activeHolds(ctx).find((hold) => hold.step.hop === ctx.step.hop);
}

/**
 * For the Karpenter step, before it saves its plan: the originals the hold saved, by pool (the pools themselves now
 * carry the upgrade budget, which must never be "restored").
 */
export function heldOriginals(ctx: StepContext): Map<string, Budget[] | null> {
  const held = new Map<string, Budget[] | null>();
  const hold = holdOfHop(ctx);
  for (const [name, pool] of Object.entries(hold?.state.pools ?? {})) {
    if (pool.original !== undefined && !pool.restored) held.set(name, pool.original);
  }
  return held;
}

/**
 * For the Karpenter step, once its own state (with the held originals) is saved: restore the held pools it does
 * not drive (nothing left to replace), then mark the hold adopted. Safe to run again after a crash.
 */
export async function releaseHold(ctx: StepContext, driven: ReadonlySet<string>): Promise<void> {
  const hold = holdOfHop(ctx);
  if (!hold) return;
  const view = holdContext(ctx, hold.step);
  // The driven pools keep what the controls say (the upgrade budget, in practice: they carry it already).
  await applyBudgets(view, hold.state, await ctx.controls(), (pool) => !driven.has(pool));
  hold.state.adoptedBy = ctx.step.id;
  await view.saveStepState({ adoptedBy: ctx.step.id });
}
