import type { SimCluster } from './world-types.js';

/**
 * EKS version rollback eligibility: after an in-place upgrade of the control plane to N, the cluster may go back to
 * N-1 for 7 days from the upgrade's completion (rollback-cluster, Prerequisites). A cluster created at N, already
 * rolled back, or past the 7 days has no rollback target.
 */
export const ROLLBACK_WINDOW_MS = 7 * 24 * 3600_000;

export interface RollbackWindow {
  /** N-1, the version a rollback returns to. */
  version: string;
  /** When the in-place upgrade to the current version completed (epoch ms). */
  upgradedAt: number;
  /** upgradedAt + 7 days. */
  closesAt: number;
}

/** The rollback window of the cluster's last in-place upgrade, open or not; undefined when there is none. */
export function rollbackWindowOf(cluster: SimCluster): RollbackWindow | undefined {
  const previous = cluster.previousVersion;
  if (!previous) return undefined;
  return { version: previous.version, upgradedAt: previous.upgradedAt, closesAt: previous.upgradedAt + ROLLBACK_WINDOW_MS };
}

/** The rollback window when it is still open at `now`. */
export function openRollbackWindow(cluster: SimCluster, now: number): RollbackWindow | undefined {
  const window = rollbackWindowOf(cluster);
  return window && now < window.closesAt ? window : undefined;
}
