import type { PlannedStep } from '../ports/upgrade-plan.js';
import type { ActedAction, UpgradeJobData } from '../planning/upgrade-job-data.js';

/**
 * The approved plan next to what the job did, for the gate card ("this hop will …") and the summary card
 * ("planned 7, done 6, already there 1; left alone: …"). Pure.
 */
const keyOf = (a: { resource: string; action: string; to?: string }) => `${a.resource} ${a.action}${a.to ? ` ${a.to}` : ''}`;

/** One line per planned action of a hop, with its reason: what the approver is asked to let happen. */
export function hopPlanLines(steps: PlannedStep[], hop: number, max = 15): string[] {
  const actions = steps.filter((step) => step.hop === hop).flatMap((step) => step.actions ?? []);
  const lines = actions.slice(0, max).map((action) => `• ${action.resource}: ${action.reason}`);
  if (actions.length > max) lines.push(`• …and ${actions.length - max} more (see \`plan\`)`);
  return lines;
}

export interface PlanVersusJob {
  planned: number;
  counts: Record<ActedAction['outcome'] | 'not reached', number>;
  /** Actions that did not go as planned, one sentence each. */
  exceptions: string[];
}

export function planVersusJob(data: Pick<UpgradeJobData, 'steps' | 'acted'>): PlanVersusJob | undefined {
  if (!data.steps.some((step) => step.actions)) return undefined;
  const counts: PlanVersusJob['counts'] = { done: 0, already: 0, 'left-alone': 0, gone: 0, skipped: 0, 'not reached': 0 };
  const exceptions: string[] = [];
  let planned = 0;
  for (const step of data.steps) {
    const acted = data.acted[step.id] ?? {};
    const byResource = new Map(Object.values(acted).map((a) => [a.resource, a]));
    const plannedKeys = new Set<string>();
    for (const action of step.actions ?? []) {
      if (action.action === 'report-manual') continue;
      planned += 1;
      plannedKeys.add(keyOf(action));
      const did = acted[keyOf(action)] ?? (byResource.get(action.resource)?.outcome !== 'done' ? byResource.get(action.resource) : undefined);
      if (!did) {
        counts['not reached'] += 1;
        continue;
      }
      counts[did.outcome] += 1;
      if (did.outcome !== 'done') exceptions.push(`${action.resource} (${step.title}): ${did.outcome === 'already' ? 'already there' : did.outcome}${did.note ? ` — ${did.note}` : ''}`);
    }
    for (const did of Object.values(acted)) {
      if (plannedKeys.has(keyOf(did)) || (step.actions ?? []).some((a) => a.resource === did.resource)) continue;
      exceptions.push(`${did.resource} (${step.title}): ${did.outcome}${did.note ? ` — ${did.note}` : ''}`);
    }
  }
  return { planned, counts, exceptions };
}

export function planVersusJobLines(data: Pick<UpgradeJobData, 'steps' | 'acted'>): string[] {
  const result = planVersusJob(data);
  if (!result) return [];
  const parts = Object.entries(result.counts).filter(([, n]) => n > 0).map(([outcome, n]) => `${n} ${outcome === 'already' ? 'already there' : outcome}`);
  const lines = [`Plan vs job: ${result.planned} planned action(s)${parts.length ? ` — ${parts.join(', ')}` : ''}.`];
  for (const exception of result.exceptions.slice(0, 10)) lines.push(`• ${exception}`);
  if (result.exceptions.length > 10) lines.push(`• …and ${result.exceptions.length - 10} more (see the timeline)`);
  return lines;
}
