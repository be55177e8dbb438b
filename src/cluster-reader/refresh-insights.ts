import type { InsightSummary } from '@aws-sdk/client-eks';
import type { Clock } from '../ports/clock.js';
import type { EksPort } from '../ports/aws/eks-port.js';
import type { InsightsRefreshInfo } from '../planning/cluster-snapshot.js';
import { readUpdatesByTime } from './read-updates-by-time.js';

/**
 * Fresh insights before a preflight: EKS rescans about once a day, so a plan may otherwise judge an upgrade on a
 * scan from yesterday (an API client fixed this morning still shows). When the oldest insight's lastRefreshTime
 * is older than `maxAgeMs` — or than the cluster's last version change (EKS rescans about daily, so right after a hop
 * the insights still describe the previous target) — StartInsightsRefresh and follow DescribeInsightsRefresh on the
 * clock, at most `waitMs`; then list again. A refresh that fails or takes too long is not an error: the plan goes on with the insights it
 * has and says how old they are.
 */
export interface InsightsFreshness {
  maxAgeMs: number;
  waitMs: number;
  pollMs?: number;
}

export const DEFAULT_INSIGHTS_POLL_MS = 5_000;

export function oldestRefresh(summaries: InsightSummary[]): number | undefined {
  const times = summaries.map((s) => s.lastRefreshTime?.getTime()).filter((t): t is number => t !== undefined);
  return times.length > 0 ? Math.min(...times) : undefined;
}

export async function listFreshInsights(
  eks: EksPort,
  cluster: string,
  clock: Clock,
  freshness: InsightsFreshness | undefined,
): Promise<{ summaries: InsightSummary[]; refresh: InsightsRefreshInfo }> {
  const summaries = await eks.listInsights(cluster);
  const asOf = oldestRefresh(summaries);
  const now = clock.now();
  if (!freshness) return { summaries, refresh: { asOf, outcome: 'fresh' } };
  // Young is not enough: a scan from before the cluster's last version change judges the upgrade it has just had.
  if (asOf !== undefined && now - asOf <= freshness.maxAgeMs && !(asOf < ((await lastVersionChange(eks, cluster)) ?? -Infinity))) {
    return { summaries, refresh: { asOf, outcome: 'fresh' } };
  }
  try {
    await eks.startInsightsRefresh(cluster);
    const deadline = now + freshness.waitMs;
    for (;;) {
      const state = await eks.describeInsightsRefresh(cluster);
      if (state.status === 'COMPLETED') break;
      if (state.status === 'FAILED') {
        return { summaries, refresh: { asOf, outcome: 'failed', note: `EKS could not refresh the insights: ${state.message ?? 'no reason given'}` } };
      }
      if (clock.now() >= deadline) {
        return { summaries, refresh: { asOf, outcome: 'timed-out', note: `the insights refresh did not finish within ${Math.round(freshness.waitMs / 1000)} s` } };
      }
      await clock.sleep(Math.min(freshness.pollMs ?? DEFAULT_INSIGHTS_POLL_MS, Math.max(deadline - clock.now(), 1)));
    }
  } catch (error) {
    // No eks:StartInsightsRefresh permission, throttling: the plan still runs on the insights it has.
    return { summaries, refresh: { asOf, outcome: 'failed', note: `refreshing the insights failed (${(error as Error).name}: ${(error as Error).message})` } };
  }
  const fresh = await eks.listInsights(cluster);
  return { summaries: fresh, refresh: { asOf: oldestRefresh(fresh), outcome: 'refreshed' } };
}

/**
 * When the cluster's version last changed: the newest VersionUpdate that did not fail, by createdAt (an update
 * still in progress counts: the scan before it is about the old version either way). Unreadable: undefined, and the
 * age rule alone decides.
 */
async function lastVersionChange(eks: EksPort, cluster: string): Promise<number | undefined> {
  try {
    const updates = await readUpdatesByTime(eks, cluster);
    const changes = updates.filter((u) => u.type === 'VersionUpdate' && u.status !== 'Failed' && u.status !== 'Cancelled' && u.createdAt);
    return changes.length ? new Date(changes[changes.length - 1].createdAt!).getTime() : undefined;
  } catch {
    return undefined;
  }
}
