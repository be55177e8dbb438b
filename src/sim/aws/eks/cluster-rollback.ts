import { AwsApiError, invalidParameter, invalidRequest, notFound } from '../aws-error.js';
import { autoModeNodesNewerThan } from './auto-mode.js';
import { computeInsights } from './insights.js';
import { rollbackWindowOf } from './rollback-window.js';
import { apiServerVersionFor, latestPlatformVersionFor, supportCalendarFor } from './version-catalog.js';
import type { SimCluster, SimUpdate, SimWorld } from '../world-types.js';

/**
 * EKS version rollback (rollback-cluster, rollback-automode): `UpdateClusterVersion` with the previous minor (and
 * optionally `rollbackConfig: {timeoutMinutes}`) on a cluster upgraded in place to its version less than 7 days ago
 * starts an update of type `VersionRollback`. EKS checks, in order: one minor back only; the cluster upgraded in
 * place (not created at its version, not already rolled back); within 7 days of that upgrade's completion; N-1 in
 * extended support needs the EXTENDED upgrade policy; then the ROLLBACK_READINESS insights — ERROR or UNKNOWN block
 * it unless `force` (which bypasses only the insights). The control plane goes back to N-1 on the latest platform
 * version of N-1; node groups, self-managed nodes and add-ons stay where they are.
 *
 * On an EKS Auto Mode cluster the Auto Mode nodes go first: the cluster stays ACTIVE while EKS drifts them to N-1
 * (PDBs honoured), then it turns UPDATING for the control-plane phase. `CancelUpdate` stops the node phase; past
 * `timeoutMinutes` the update fails. Either way the nodes return to N.
 */

export const ROLLBACK_TIMEOUT_DEFAULT_MINUTES = 720;
/** How often an Auto Mode rollback checks on its nodes (simulated). */
const NODE_PHASE_POLL_MS = 15_000;
/** How long a cancellation takes to settle once asked for (simulated). */
export const CANCELLATION_MS = 30_000;

export interface RollbackRequest {
  version: string;
  force: boolean;
  rollbackConfig?: { timeoutMinutes?: unknown };
}

/** Whether an update is a VersionRollback whose control-plane phase has begun (no longer cancellable). */
const controlPlanePhase = new WeakSet<SimUpdate>();

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function timeoutOf(cluster: SimCluster, config: RollbackRequest['rollbackConfig']): number {
  if (config === undefined || config === null) return ROLLBACK_TIMEOUT_DEFAULT_MINUTES;
  if (typeof config !== 'object') throw invalidParameter('rollbackConfig must be an object like {"timeoutMinutes": 720}.', { clusterName: cluster.name });
  const value = config.timeoutMinutes;
  if (value === undefined) return ROLLBACK_TIMEOUT_DEFAULT_MINUTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 120 || value > 10080) {
    throw invalidParameter(`rollbackConfig.timeoutMinutes must be a whole number of minutes between 120 and 10080, got ${JSON.stringify(value)}.`, { clusterName: cluster.name });
  }
  return value;
}

/** ROLLBACK_READINESS insights that block a rollback without force: ERROR and UNKNOWN. */
function blockingInsights(world: SimWorld, cluster: SimCluster) {
  return computeInsights(world, cluster).filter(
    (i) => i.category === 'ROLLBACK_READINESS' && (i.insightStatus.status === 'ERROR' || i.insightStatus.status === 'UNKNOWN'),
  );
}

/** The checks EKS makes before a rollback (after the generic ones: nothing in flight, ACTIVE, an offered version). */
export function checkClusterRollback(world: SimWorld, cluster: SimCluster, request: RollbackRequest): number {
  const { version } = request;
  const timeoutMinutes = timeoutOf(cluster, request.rollbackConfig);
  const [, currentMinor] = cluster.version.split('.').map(Number);
  const [, wantedMinor] = version.split('.').map(Number);
  if (currentMinor - wantedMinor > 1) {
    throw invalidParameter(
      `Unsupported Kubernetes version rollback from ${cluster.version} to ${version}. A version rollback goes back one minor version only, to ${cluster.version.split('.')[0]}.${currentMinor - 1}.`,
      { clusterName: cluster.name },
    );
  }
  const window = rollbackWindowOf(cluster);
  if (!window) {
    const rolledBack = cluster.lastRollback && cluster.lastRollback.to === cluster.version;
    throw invalidRequest(
      rolledBack
        ? `Cluster ${cluster.name} was already rolled back from ${cluster.lastRollback!.from} to ${cluster.version} on ${iso(cluster.lastRollback!.at)}. A cluster can roll back only to the version it was upgraded in place from, once.`
        : `Cluster ${cluster.name} was not upgraded in place to Kubernetes ${cluster.version}. Only a cluster upgraded in place can be rolled back; a cluster created at its current version cannot.`,
      { clusterName: cluster.name },
    );
  }
  const now = world.clock.now();
  if (now >= window.closesAt) {
    throw invalidRequest(
      `The rollback window for cluster ${cluster.name} closed on ${iso(window.closesAt)}, 7 days after its upgrade to Kubernetes ${cluster.version} completed on ${iso(window.upgradedAt)}. A version rollback must start within 7 days of an in-place upgrade.`,
      { clusterName: cluster.name },
    );
  }
  const calendar = supportCalendarFor(version, world.calendarShiftMs);
  if (now >= calendar.endOfStandardSupport && cluster.supportType !== 'EXTENDED') {
    throw invalidRequest(
      `Kubernetes ${version} is in extended support and cluster ${cluster.name} has the STANDARD upgrade policy. Change the upgrade policy to EXTENDED before rolling back to ${version}.`,
      { clusterName: cluster.name },
    );
  }
  if (!request.force) {
    const blocking = blockingInsights(world, cluster);
    if (blocking.length) {
      throw new AwsApiError(
        400,
        'InvalidStateException',
        `Cluster version rollback to ${version} is blocked by rollback readiness insights with ERROR or UNKNOWN status: ${blocking.map((i) => `${i.name} (${i.insightStatus.status})`).join(', ')}. Call ListInsights with category ROLLBACK_READINESS to see the affected resources, resolve them, or retry with force to bypass rollback readiness checks.`,
        { clusterName: cluster.name },
      );
    }
  }
  return timeoutMinutes;
}

export function startClusterRollback(world: SimWorld, cluster: SimCluster, request: RollbackRequest): SimUpdate {
  const timeoutMinutes = checkClusterRollback(world, cluster, request);
  const from = cluster.version;
  const to = request.version;
  const update: SimUpdate = {
    id: world.newId(),
    type: 'VersionRollback',
    status: 'InProgress',
    params: [
      { type: 'Version', value: to },
      { type: 'PlatformVersion', value: latestPlatformVersionFor(to) },
    ],
    createdAt: world.clock.now(),
    errors: [],
    scope: {},
  };
  cluster.updates.push(update);
  world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback started', updateId: update.id, from, to, timeoutMinutes, force: request.force });

  const fault = world.faults.failNextClusterUpdate;
  const failure = fault && (!fault.cluster || fault.cluster === cluster.name) ? { errorCode: fault.errorCode, errorMessage: fault.errorMessage ?? `The cluster version rollback failed: ${fault.errorCode}.` } : undefined;
  if (failure) world.faults.failNextClusterUpdate = undefined;

  const controlPlane = () => {
    controlPlanePhase.add(update);
    cluster.status = 'UPDATING';
    world.log({ cluster: cluster.name, component: 'eks', message: 'control plane rollback started', updateId: update.id, from, to });
    world.after(world.settings.controlPlaneUpdateMs, () => {
      cluster.status = 'ACTIVE';
      if (failure) {
        update.status = 'Failed';
        update.endedAt = world.clock.now();
        update.errors = [{ ...failure, resourceIds: [cluster.name] }];
        if (cluster.computeConfig?.enabled) cluster.autoModeTarget = undefined;
        world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback failed', updateId: update.id, errorCode: failure.errorCode });
        return;
      }
      cluster.version = to;
      cluster.platformVersion = latestPlatformVersionFor(to);
      cluster.store.gitVersion = apiServerVersionFor(to);
      cluster.previousVersion = undefined;
      cluster.lastRollback = { from, to, at: world.clock.now() };
      cluster.autoModeTarget = undefined;
      update.status = 'Successful';
      update.endedAt = world.clock.now();
      world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback succeeded', updateId: update.id, version: to });
    });
  };

  if (!cluster.computeConfig?.enabled) {
    controlPlane();
    return update;
  }

  // Auto Mode: the nodes first, with the cluster ACTIVE; the control plane once none is newer than N-1.
  cluster.autoModeTarget = to;
  const deadline = update.createdAt + timeoutMinutes * 60_000;
  world.log({ cluster: cluster.name, component: 'eks', message: 'Auto Mode node rollback started', updateId: update.id, to, deadline: iso(deadline) });
  const watch = () => {
    if (update.status !== 'InProgress' || update.cancellation) return;
    if (autoModeNodesNewerThan(cluster, to).length === 0) {
      // "EKS re-checks insights and proceeds with the control plane rollback" (rollback-automode): unless forced, an
      // insight that turned ERROR/UNKNOWN meanwhile stops it here, before the control plane moves.
      const blocking = request.force ? [] : blockingInsights(world, cluster);
      if (!blocking.length) return controlPlane();
      update.status = 'Failed';
      update.endedAt = world.clock.now();
      update.errors = [
        {
          errorCode: 'Unknown',
          errorMessage: `Rollback readiness insights re-checked after the Auto Mode node rollback are not passing: ${blocking.map((i) => `${i.name} (${i.insightStatus.status})`).join(', ')}. The control plane stays at ${from}; the nodes return to ${from}.`,
          resourceIds: [cluster.name],
        },
      ];
      cluster.autoModeTarget = undefined;
      world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback stopped by the insight re-check', updateId: update.id });
      return;
    }
    if (world.clock.now() >= deadline) {
      update.status = 'Failed';
      update.endedAt = world.clock.now();
      update.errors = [
        {
          errorCode: 'Unknown',
          errorMessage: `The version rollback timed out after ${timeoutMinutes} minutes before every Auto Mode node was rolled back to ${to}. The control plane stays at ${from}; the nodes return to ${from}.`,
          resourceIds: autoModeNodesNewerThan(cluster, to).map((n) => n.metadata.name),
        },
      ];
      cluster.autoModeTarget = undefined;
      world.log({ cluster: cluster.name, component: 'eks', message: 'Auto Mode node rollback timed out', updateId: update.id });
      return;
    }
    world.after(NODE_PHASE_POLL_MS, watch);
  };
  world.after(NODE_PHASE_POLL_MS, watch);
  return update;
}

/**
 * CancelUpdate: only a VersionRollback of an Auto Mode cluster while its nodes roll back (before the control-plane
 * phase). The update stays InProgress with cancellation InProgress, then turns Cancelled (cancellation Successful);
 * the nodes converge back to the cluster's version. Anything else is refused with the reason.
 */
export function cancelUpdate(world: SimWorld, cluster: SimCluster, updateId: string): SimUpdate {
  const update = cluster.updates.find((u) => u.id === updateId);
  if (!update) throw notFound(`No update found for ID: ${updateId}.`, { clusterName: cluster.name });
  if (update.status !== 'InProgress') {
    throw invalidRequest(`Update ${updateId} is ${update.status} and can no longer be cancelled.`, { clusterName: cluster.name });
  }
  if (update.type !== 'VersionRollback' || !cluster.computeConfig?.enabled) {
    throw invalidRequest(
      `Update ${updateId} (${update.type}) cannot be cancelled. Only a VersionRollback update of an EKS Auto Mode cluster can be cancelled, while its nodes are rolling back.`,
      { clusterName: cluster.name },
    );
  }
  if (controlPlanePhase.has(update)) {
    throw invalidRequest(`The control plane rollback of cluster ${cluster.name} has already begun; update ${updateId} can no longer be cancelled.`, { clusterName: cluster.name });
  }
  if (update.cancellation) return update;
  update.cancellation = { status: 'InProgress', reason: 'Cancellation requested: stopping the Auto Mode node rollback.' };
  cluster.autoModeTarget = undefined;
  world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback cancellation requested', updateId });
  world.after(CANCELLATION_MS, () => {
    update.status = 'Cancelled';
    update.endedAt = world.clock.now();
    update.cancellation = { status: 'Successful', reason: `The Auto Mode node rollback was stopped; nodes converge to the cluster version ${cluster.version}.` };
    world.log({ cluster: cluster.name, component: 'eks', message: 'version rollback cancelled', updateId });
  });
  return update;
}

/** True while the update is a rollback in its control-plane phase (for /_sim/state). */
export function inControlPlanePhase(update: SimUpdate): boolean {
  return controlPlanePhase.has(update);
}
