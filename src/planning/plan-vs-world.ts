import type { ActionKind, PlannedAction } from '../ports/upgrade-plan.js';

/**
 * The world as a step finds it, against the plan the approver read. Between `start` and the moment a step acts
 * people keep working: a node group is added, an EC2NodeClass's selector is edited, an add-on is upgraded by hand.
 * The policy (docs/upgrade-job.md, "Plan and world"), decided here so every step applies it alike:
 * - a resource the plan names that still needs the planned action: the step acts on it;
 * - a resource the plan names that is already where the plan would take it: skipped, and named;
 * - a resource the plan names that is gone: named; nothing to do;
 * - a resource the plan names whose needed action changed (e.g. amiSelectorTerms edited from an id to tags): left
 *   alone, named with both actions — acting differently from what was approved needs a new plan;
 * - a resource that needs work but is not in the plan (it appeared since): left alone, named — plan and start
 *   again to include it.
 * Pure.
 */
export interface WorldDecision {
  resource: string;
  /** What the resource needs now; 'at-target' when nothing. */
  action: ActionKind | 'at-target';
  reason: string;
}

export interface PlanComparison {
  /** Resources the step acts on: planned, and still needing the planned action. */
  act: string[];
  already: WorldDecision[];
  gone: PlannedAction[];
  changed: Array<{ planned: PlannedAction; now: WorldDecision }>;
  appeared: WorldDecision[];
}

export function comparePlanWithWorld(planned: PlannedAction[], world: WorldDecision[]): PlanComparison {
  const byResource = new Map<string, PlannedAction>();
  for (const action of planned) if (!byResource.has(action.resource)) byResource.set(action.resource, action);
  const seen = new Map(world.map((decision) => [decision.resource, decision]));
  const comparison: PlanComparison = { act: [], already: [], gone: [], changed: [], appeared: [] };
  for (const [resource, plannedAction] of byResource) {
    const now = seen.get(resource);
    if (!now) comparison.gone.push(plannedAction);
    else if (now.action === 'at-target') comparison.already.push(now);
    else if (now.action !== plannedAction.action) comparison.changed.push({ planned: plannedAction, now });
    else comparison.act.push(resource);
  }
  for (const decision of world) {
    if (!byResource.has(decision.resource) && decision.action !== 'at-target') comparison.appeared.push(decision);
  }
  return comparison;
}

export function hasDivergence(comparison: PlanComparison): boolean {
  return comparison.already.length + comparison.gone.length + comparison.changed.length + comparison.appeared.length > 0;
}

const words: Record<ActionKind, string> = {
  'update-control-plane': 'a control-plane update',
  'update-addon': 'an add-on update',
  'update-in-place': 'an in-place update',
  'roll-launch-template': 'a launch template roll',
  'blue-green': 'a blue/green replacement',
  'custom-ami-gate': 'a custom-AMI gate',
  'hold-budget': 'the upgrade budget',
  'pin-ami': 'pointing it at the target AMI id',
  'follow-alias': 'following its alias',
  'pinned-alias': 'checking its pinned alias',
  'karpenter-manual': 'an AMI from the operator',
  'restart-workload': 'a rollout restart',
  'roll-self-managed': 'a self-managed group roll',
  'report-manual': 'a report for the operator',
};

/** The thread's note: one line per resource that differs from the plan, saying what the step does about it. */
export function describeDivergence(comparison: PlanComparison, plannedAt: number | undefined): string {
  const since = plannedAt ? ` (read ${new Date(plannedAt).toISOString().slice(11, 16)} UTC)` : '';
  const lines = [`The cluster changed since the approved plan${since}:`];
  for (const decision of comparison.already) lines.push(`• ${decision.resource}: already there (${decision.reason}); skipped.`);
  for (const action of comparison.gone) lines.push(`• ${action.resource}: gone since the plan; nothing to do.`);
  for (const { planned, now } of comparison.changed) {
    lines.push(`• ${planned.resource}: the plan said ${words[planned.action]}, it now needs ${now.action === 'at-target' ? 'nothing' : words[now.action]} (${now.reason}); left alone — plan and start again to act on it.`);
  }
  for (const decision of comparison.appeared) {
    lines.push(`• ${decision.resource} appeared since the plan; it is left alone because the approved plan does not name it (it needs ${decision.action === 'at-target' ? 'nothing' : words[decision.action]}). Plan and start again to include it.`);
  }
  return lines.join('\n');
}
