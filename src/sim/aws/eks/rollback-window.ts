import { latestPlatformVersionFor } from './version-catalog.js';
import type { SimCluster, SimUpdate, SimWorld } from '../world-types.js';

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

/** Update records made up by recordInPlaceUpgrade (so setting it again replaces, not adds). */
const madeUp = new WeakSet<SimUpdate>();

/**
 * Makes the cluster one that was upgraded in place from `from` to its version, the upgrade ending at `upgradedAt`
 * (scenario `upgradedFrom`, POST /_sim/clusters/<name> {upgradedFrom}): the rollback window runs from then, and
 * ListUpdates/DescribeUpdate keep the Successful VersionUpdate that did it (created one control-plane update
 * duration before it ended), as on EKS.
 */
export function recordInPlaceUpgrade(world: SimWorld, cluster: SimCluster, from: string, upgradedAt: number): SimUpdate {
  cluster.previousVersion = { version: from, upgradedAt };
  cluster.lastRollback = undefined;
  const kept = cluster.updates.filter((u) => !madeUp.has(u));
  cluster.updates.splice(0, cluster.updates.length, ...kept);
  const update: SimUpdate = {
    id: world.newId(),
    type: 'VersionUpdate',
    status: 'Successful',
    params: [
      { type: 'Version', value: cluster.version },
      { type: 'PlatformVersion', value: latestPlatformVersionFor(cluster.version) },
    ],
    createdAt: upgradedAt - world.settings.controlPlaneUpdateMs,
    errors: [],
    scope: {},
  };
  madeUp.add(update);
  // Older updates first, as EKS lists them.
  const at = cluster.updates.findIndex((u) => u.createdAt > update.createdAt);
  cluster.updates.splice(at < 0 ? cluster.updates.length : at, 0, update);
  return update;
}
