/**
 * `status --all`: every cluster read concurrently, each under its own deadline, so one unreachable or slow cluster
 * becomes an error row instead of holding up or sinking the rest. Rows come back in the order the clusters were given.
 *
 * At most `concurrency` clusters of one AWS account and region are read at once, and MAX_CLUSTERS_AT_ONCE in all. AWS
 * meters API requests per account and Region (EC2's and ECS's API references say so in as many words; EKS answers past
 * its rate with 429 ThrottlingException, which the SDK retries), so the bound sits where the limit does, and a fleet
 * spread over regions and accounts is read that much sooner without more calls against any one rate.
 *
 * Several clusters are read as rows (scope 'fleet': what a row shows, see collect-snapshot.ts); one cluster as its card.
 */

import { DEFAULT_STATUS_CONCURRENCY } from '../config/env-config.js';
import { mapBoundedBy, withDeadline } from './bounded.js';
import { buildClusterStatus, type ActiveJobStatus, type ClusterStatus } from '../report/cluster-status.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { describeReadError } from './read-error.js';
import { readClusterUpdates } from './rollback-reads.js';
import { shareClusterUpdates } from './share-cluster-updates.js';
import { shareRegionReads } from './shared-region-reads.js';
import { checkRollbackPreflight, formatUtc, rollbackLine, rollbackWindowOf } from '../planning/rollback-preflight.js';
import { valueOr, type ClusterSnapshot } from '../planning/cluster-snapshot.js';
import type { Update } from '@aws-sdk/client-eks';

export interface StatusTarget {
  name: string;
  region: string;
  roleArn?: string;
}

export interface CollectStatusesOptions {
  /** Clusters of one AWS account and region read at once (STATUS_CONCURRENCY). */
  concurrency?: number;
  timeoutMs?: number;
  /** The running upgrade job of a cluster, if any (the engine's UpgradeControl.findActive). */
  findActive?: (cluster: string) => Promise<ActiveJobStatus | undefined>;
}

export { DEFAULT_STATUS_CONCURRENCY };
export const DEFAULT_CLUSTER_TIMEOUT_MS = 20_000;

/**
 * Clusters read at once in all, whatever their accounts and regions: each holds a Kubernetes connection and its
 * answers in memory until its row is built (1,000 clusters in three regions: bench P2k's peak RSS).
 */
const MAX_CLUSTERS_AT_ONCE = 128;

/** The account and region a cluster's EKS calls count against: the role's account, or the bot's own credentials'. */
export function throttleKeyOf(target: StatusTarget): string {
  const account = target.roleArn ? (/^arn:[^:]+:iam::(\d{12}):/.exec(target.roleArn)?.[1] ?? target.roleArn) : 'own credentials';
  return `${account} ${target.region}`;
}

/**
 * Maps a fleet's clusters as `status --all` and `rollout` read them: at most `concurrency` (STATUS_CONCURRENCY) of one
 * account and Region at once, and MAX_CLUSTERS_AT_ONCE in all; results in the order given.
 */
export function mapClusters<T extends StatusTarget, R>(targets: readonly T[], concurrency: number | undefined, read: (target: T) => Promise<R>): Promise<R[]> {
  return mapBoundedBy(targets, throttleKeyOf, { perKey: concurrency ?? DEFAULT_STATUS_CONCURRENCY, overall: MAX_CLUSTERS_AT_ONCE }, read);
}

/**
 * One cluster's status: its card ('status'), or its row of a fleet ('fleet': no rollback line, which only the card
 * shows, so no ListUpdates for an ACTIVE cluster).
 */
export async function collectStatus(
  fleetSources: SnapshotSources,
  target: StatusTarget,
  options: CollectStatusesOptions = {},
  scope: 'status' | 'fleet' = 'status',
): Promise<ClusterStatus> {
  // The rollback line and a non-ACTIVE card both read the cluster's updates: once, for both. A row has no rollback
  // line, so nothing to share.
  const sources = scope === 'fleet' ? fleetSources : shareClusterUpdates(fleetSources, target.name);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLUSTER_TIMEOUT_MS;
  const job = options.findActive ? options.findActive(target.name).catch(() => undefined) : Promise.resolve(undefined);
  try {
    // The updates say whether a rollback is possible (issue 10); best effort: the card stands without them.
    const updates = scope === 'fleet' ? Promise.resolve([]) : readClusterUpdates(sources.eks({ region: target.region, roleArn: target.roleArn }), target.name, 10).catch(() => []);
    const [snapshot, read] = await withDeadline(Promise.all([collectSnapshot(sources, { ...target, scope }), updates]), timeoutMs, `Cluster ${target.name}`, sources.clock);
    const status = buildClusterStatus(snapshot, await job);
    const rollback = rollbackStatusOf(snapshot, read, sources.clock.now());
    return rollback ? { ...status, rollback } : status;
  } catch (error) {
    return { name: target.name, region: target.region, nodes: [], addons: [], problems: [], error: describeReadError(`Reading cluster ${target.name}`, error) };
  }
}

export function collectStatuses(sources: SnapshotSources, targets: StatusTarget[], options: CollectStatusesOptions = {}): Promise<ClusterStatus[]> {
  // Versions and the add-on catalogue are the same for every cluster of a region: read once per region.
  if (targets.length <= 1) return Promise.all(targets.map((target) => collectStatus(sources, target, options)));
  const shared = shareRegionReads(sources);
  return mapClusters(targets, options.concurrency, (target) => collectStatus(shared, target, options, 'fleet'));
}

/** "rollback to 1.30 possible until …" and the readiness insights that block it now, while the window is open. */
export function rollbackStatusOf(snapshot: ClusterSnapshot, updates: Update[], now: number): ClusterStatus['rollback'] {
  if (!snapshot.cluster.ok) return undefined;
  const { version, status, supportType } = snapshot.cluster.value;
  const window = rollbackWindowOf(version, updates);
  const text = rollbackLine(version, window, now);
  if (!window || !text) return undefined;
  const to = text.replace(/^rollback to (\S+).*/, '$1');
  const preflight = checkRollbackPreflight({ cluster: snapshot.name, status, version, target: to, supportType, updates, insights: valueOr(snapshot.insights, []), now });
  const blocking = preflight.findings
    .filter((finding) => finding.severity === 'error')
    .map((finding) => `${finding.code} ${finding.title}${finding.resources.length > 0 ? ` [${finding.resources.slice(0, 5).join(', ')}${finding.resources.length > 5 ? ', …' : ''}]` : ''}`);
  return { to, until: formatUtc(window.until), text, blocking };
}
