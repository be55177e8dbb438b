import type { PlannedAction } from '../../src/ports/upgrade-plan.js';
import type { Step, StepContext, StepResult } from './step-context.js';
import { acts, execute, halted } from './execute-commands.js';

/**
 * The gates the approved plan announces for a data-plane step (issue 23): each planned action that carries a
 * question (src/planning/planner/plan-gates.ts) is asked, in the plan's order and in the plan's words, before the step acts.
 * An answer is kept in the step's state, so a step run again (after a park, a crash, a window of the Karpenter
 * drift) goes straight on. A job planned without actions (schema 1, engine tests) and a dry run ask nothing here.
 */
export function plannedGateId(ctx: StepContext, action: PlannedAction): string {
  return `h${ctx.step.hop}-ask-${action.resource.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
}

/** The planned question for one resource of this step; undefined when the plan asks none (or had no actions). */
export function plannedQuestion(ctx: StepContext, resource: string): string | undefined {
  return ctx.step.actions?.find((action) => action.resource === resource)?.gate;
}

export async function askPlannedGates(ctx: StepContext, skip: (action: PlannedAction) => boolean = () => false): Promise<StepResult | undefined> {
  if (!acts(ctx)) return undefined;
  for (const action of ctx.step.actions ?? []) {
    if (!action.gate || skip(action)) continue;
    const gateId = plannedGateId(ctx, action);
    if (ctx.stepState()[`asked:${gateId}`]) continue;
    const outcome = await execute(ctx, {
      kind: 'ask-gate',
      gate: {
        gateId,
        title: action.gate,
        details: [`${action.reason}.`.replace(/\.\.$/, '.'), 'The approved plan asks this before the job acts (clusters.yaml `gates:` turns a kind of gate off).'],
        actions: ['continue', 'abort'],
      },
    });
    if (outcome.kind !== 'answered') return halted(outcome);
    await ctx.saveStepState({ [`asked:${gateId}`]: { by: outcome.by, at: outcome.at } });
  }
  return undefined;
}

/** A step that first asks its planned gates (Karpenter, self-managed groups, Fargate). */
export function withPlannedGates(step: Step): Step {
  return async (ctx) => (await askPlannedGates(ctx)) ?? step(ctx);
}
