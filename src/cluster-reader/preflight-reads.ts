import { DEFAULT_CHECK_SETTINGS, type ClusterConfig } from '../config/clusters-config.js';
import type { KubeOptIn } from './collect-kube.js';
import type { InsightsFreshness } from './refresh-insights.js';

/**
 * The extra reads a plan or a preflight makes beyond `status`, from the cluster's `checks:` settings: insights
 * refreshed when older than insightsMaxAgeHours (waiting at most insightsRefreshWaitSeconds, or `maxWaitMs` when the
 * caller has a tighter deadline, like the CLI's --timeout), and Helm release secrets when helmReleases is on.
 */
export function preflightReads(cluster: ClusterConfig | undefined, maxWaitMs = Infinity): { insightsFreshness: InsightsFreshness; optIn: KubeOptIn } {
  const checks = cluster?.checks ?? DEFAULT_CHECK_SETTINGS;
  return {
    insightsFreshness: { maxAgeMs: checks.insightsMaxAgeHours * 3600_000, waitMs: Math.min(checks.insightsRefreshWaitSeconds * 1000, maxWaitMs) },
    optIn: { helmReleases: checks.helmReleases },
  };
}
