import { comparePlanWithWorld, describeDivergence, hasDivergence, type WorldDecision } from '../../src/planning/plan-vs-world.js';
import type { StepContext } from './step-context.js';
import { acts, readsEarlierHopsAsDone } from './execute-commands.js';

/**
 * A step's first look at the world against the plan it was approved with (src/planning/plan-vs-world.ts has the
 * policy). Done once per step and saved, so a re-run after a crash acts on the same resources even though the world
 * has moved on meanwhile (resources the step already upgraded now read as "already there"). Returns the resources
 * the step acts on (the world is read only when needed: `readWorld`); without planned actions (a schema 1 job, a job started without a plan) every resource that
 * needs work. In the later hops of a dry run the world is still where the first hop found it, so the plan stands.
 */
export async function resourcesToAct(ctx: StepContext, readWorld: () => Promise<WorldDecision[]> | WorldDecision[]): Promise<Set<string>> {
  const saved = ctx.stepState<{ planCheck: { act: string[] } }>().planCheck;
  if (saved) return new Set(saved.act);
  const planned = ctx.step.actions;
  if (readsEarlierHopsAsDone(ctx) && planned) return new Set(planned.map((action) => action.resource));
  const world = await readWorld();
  if (!planned) return new Set(world.filter((decision) => decision.action !== 'at-target').map((decision) => decision.resource));
  const comparison = comparePlanWithWorld(planned, world);
  if (hasDivergence(comparison)) {
    await ctx.emit('plan-vs-world', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: describeDivergence(comparison, ctx.data.plannedAt) });
  }
  if (acts(ctx)) {
    for (const decision of comparison.already) {
      const action = planned.find((a) => a.resource === decision.resource)!;
      ctx.recordActed({ resource: decision.resource, action: action.action, to: action.to, outcome: 'already', note: decision.reason });
    }
    for (const action of comparison.gone) ctx.recordActed({ resource: action.resource, action: action.action, to: action.to, outcome: 'gone' });
    for (const { planned: action, now } of comparison.changed) {
      ctx.recordActed({ resource: action.resource, action: action.action, to: action.to, outcome: 'left-alone', note: now.reason });
    }
    for (const decision of comparison.appeared) {
      if (decision.action !== 'at-target') ctx.recordActed({ resource: decision.resource, action: decision.action, outcome: 'left-alone', note: 'not in the approved plan' });
    }
    await ctx.saveStepState({ planCheck: { act: comparison.act } });
  }
  return new Set(comparison.act);
}
