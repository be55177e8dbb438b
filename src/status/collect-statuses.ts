/**
 * `status --all`: every cluster read concurrently (at most `concurrency` at once), each under its own deadline, so
 * one unreachable or slow cluster becomes an error row instead of holding up or sinking the rest. Rows come back in
 * the order the clusters were given.
 */

import { DEFAULT_STATUS_CONCURRENCY } from '../config/env-config.js';
import { mapBounded, withDeadline } from './bounded.js';
import { buildClusterStatus, type ActiveJobStatus, type ClusterStatus } from '../report/cluster-status.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { describeReadError } from './read-error.js';

export interface StatusTarget {
  name: string;
  region: string;
  roleArn?: string;
}

export interface CollectStatusesOptions {
  concurrency?: number;
  timeoutMs?: number;
  /** The running upgrade job of a cluster, if any (the engine's UpgradeControl.findActive). */
  findActive?: (cluster: string) => Promise<ActiveJobStatus | undefined>;
}

export { DEFAULT_STATUS_CONCURRENCY };
export const DEFAULT_CLUSTER_TIMEOUT_MS = 20_000;

export async function collectStatus(sources: SnapshotSources, target: StatusTarget, options: CollectStatusesOptions = {}): Promise<ClusterStatus> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLUSTER_TIMEOUT_MS;
  const job = options.findActive ? options.findActive(target.name).catch(() => undefined) : Promise.resolve(undefined);
  try {
    const snapshot = await withDeadline(collectSnapshot(sources, target), timeoutMs, `Cluster ${target.name}`, sources.clock);
    return buildClusterStatus(snapshot, await job);
  } catch (error) {
    return { name: target.name, region: target.region, nodes: [], addons: [], problems: [], error: describeReadError(`Reading cluster ${target.name}`, error) };
  }
}

export function collectStatuses(sources: SnapshotSources, targets: StatusTarget[], options: CollectStatusesOptions = {}): Promise<ClusterStatus[]> {
  return mapBounded(targets, options.concurrency ?? DEFAULT_STATUS_CONCURRENCY, (target) => collectStatus(sources, target, options));
}
