import type { ClusterSnapshot } from './cluster-snapshot.js';
import type { PlanPolicy } from './plan-policy.js';
import type { PlanContext } from '../ports/plan-context.js';

export type { PlanContext };

/** The plan's PlanContext (src/ports/plan-context.ts): insights age and refresh outcome, and the waiver note. */
export function planContext(snapshot: ClusterSnapshot, policy: PlanPolicy): PlanContext {
  const refresh = snapshot.insightsRefresh;
  const asOf = refresh?.asOf ?? (snapshot.insights.ok ? Math.min(...snapshot.insights.value.map((i) => i.lastRefreshTime ?? Infinity)) : undefined);
  const note =
    refresh?.outcome === 'refreshed'
      ? 'refreshed for this plan'
      : refresh?.outcome === 'timed-out' || refresh?.outcome === 'failed'
        ? refresh.note
        : snapshot.insights.ok && (asOf === undefined || !Number.isFinite(asOf))
          ? 'EKS reported no scan time'
          : undefined;
  return {
    ...(asOf !== undefined && Number.isFinite(asOf) ? { insightsAsOf: new Date(asOf).toISOString() } : {}),
    ...(note ? { insightsNote: note } : {}),
    ...(policy.waiverNote ? { waiverNote: policy.waiverNote } : {}),
  };
}

/** "insights as of 2025-06-15 08:00 UTC (refreshed for this plan)" — the line every plan and preflight card carries. */
export function insightsLine(context: PlanContext): string {
  if (!context.insightsAsOf) return context.insightsNote ? `insights read (${context.insightsNote})` : 'insights not read';
  const at = context.insightsAsOf.slice(0, 16).replace('T', ' ') + ' UTC';
  return `insights as of ${at}${context.insightsNote ? ` (${context.insightsNote})` : ''}`;
}
