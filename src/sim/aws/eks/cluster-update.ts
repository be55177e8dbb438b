import { invalidParameter, invalidRequest, invalidState, resourceInUse } from '../aws-error.js';
import { startClusterRollback, type RollbackRequest } from './cluster-rollback.js';
import { scannedInsights } from './insights.js';
import { availableIps } from '../node-factory.js';
import { apiServerVersionFor, compareMinors, latestPlatformVersionFor, nextMinor } from './version-catalog.js';
import type { SimCluster, SimUpdate, SimWorld } from '../world-types.js';

/**
 * UpdateClusterVersion as EKS runs it: checks first (one minor at a time, offered versions, nothing else in
 * flight, upgrade-blocking insights unless `force`), then InProgress for the scenario's duration (default 10
 * simulated minutes) with the cluster UPDATING, then Successful at the new version — or Failed with the injected
 * error code and the cluster left at its old version, as AWS rolls back a failed upgrade.
 */
export function inProgressUpdate(cluster: SimCluster, scope: SimUpdate['scope'] = {}): SimUpdate | undefined {
  return cluster.updates.find(
    (u) => u.status === 'InProgress' && u.scope.nodegroupName === scope.nodegroupName && u.scope.addonName === scope.addonName,
  );
}

/** The checks every version change shares: nothing in flight, the cluster ACTIVE, a version EKS offers. */
function checkCommon(world: SimWorld, cluster: SimCluster, version: string): void {
  const running = inProgressUpdate(cluster);
  if (running || cluster.status === 'UPDATING') {
    throw resourceInUse(`Cluster ${cluster.name} is currently being updated (update ${running?.id ?? 'in progress'}). Wait for it to finish before starting another update.`, { clusterName: cluster.name });
  }
  if (cluster.status !== 'ACTIVE') {
    throw invalidRequest(`Cluster ${cluster.name} is in ${cluster.status} state and cannot be updated.`, { clusterName: cluster.name });
  }
  if (!/^1\.\d+$/.test(version) || !world.offeredVersions().includes(version)) {
    throw invalidParameter(`Kubernetes version ${version} is not supported. Supported versions: ${world.offeredVersions().join(', ')}.`, { clusterName: cluster.name });
  }
  if (compareMinors(version, cluster.version) === 0) {
    throw invalidParameter(`Cluster ${cluster.name} is already at Kubernetes version ${version}.`, { clusterName: cluster.name });
  }
}

/** Validates an upgrade and throws the AWS error EKS would answer; returns nothing when it may go ahead. */
export function checkClusterVersionUpdate(world: SimWorld, cluster: SimCluster, version: string, force: boolean): void {
  checkCommon(world, cluster, version);
  if (version !== nextMinor(cluster.version)) {
    throw invalidParameter(`Unsupported Kubernetes minor version update from ${cluster.version} to ${version}`, { clusterName: cluster.name });
  }
  if (world.settings.insightsBlockUpgrades && !force) {
    // Blocking on ERROR upgrade insights was launched and then "temporarily rolled back" (EKS user guide,
    // update-cluster; aws/containers-roadmap#2570): off unless the scenario turns it on. When on, EKS judges by its
    // insights as of their last scan and answers InvalidStateException.
    const blocking = scannedInsights(world, cluster).filter((i) => i.category === 'UPGRADE_READINESS' && i.kubernetesVersion === version && i.insightStatus.status === 'ERROR');
    if (blocking.length) {
      throw invalidState(
        `Cluster upgrade to ${version} is blocked by upgrade insights with ERROR status: ${blocking.map((i) => i.name).join(', ')}. Resolve them or retry with force.`,
        { clusterName: cluster.name },
      );
    }
  }
}

/**
 * UpdateClusterVersion: a version below the current one is a version rollback (cluster-rollback.ts), with or
 * without `rollbackConfig`, as the EKS user guide runs it (`aws eks update-cluster-version --kubernetes-version N-1`).
 */
export function startClusterVersionUpdate(world: SimWorld, cluster: SimCluster, version: string, force = false, rollbackConfig?: RollbackRequest['rollbackConfig']): SimUpdate {
  if (/^1\.\d+$/.test(version) && compareMinors(version, cluster.version) < 0) {
    checkCommon(world, cluster, version);
    return startClusterRollback(world, cluster, { version, force, rollbackConfig });
  }
  checkClusterVersionUpdate(world, cluster, version, force);
  const update: SimUpdate = {
    id: world.newId(),
    type: 'VersionUpdate',
    status: 'InProgress',
    // EKS reports the first platform version of the new line here (seed 004: Version 1.26, PlatformVersion eks.1).
    params: [
      { type: 'Version', value: version },
      { type: 'PlatformVersion', value: 'eks.1' },
    ],
    createdAt: world.clock.now(),
    errors: [],
    scope: {},
  };
  cluster.updates.push(update);
  cluster.status = 'UPDATING';

  const fault = world.faults.failNextClusterUpdate;
  const failure =
    fault && (!fault.cluster || fault.cluster === cluster.name)
      ? { errorCode: fault.errorCode, errorMessage: fault.errorMessage ?? `The cluster update failed: ${fault.errorCode}.` }
      : freeIpFailure(world, cluster);
  if (fault && (!fault.cluster || fault.cluster === cluster.name)) world.faults.failNextClusterUpdate = undefined;
  world.log({ cluster: cluster.name, component: 'eks', message: 'control plane update started', updateId: update.id, from: cluster.version, to: version });

  world.after(world.settings.controlPlaneUpdateMs, () => {
    cluster.status = 'ACTIVE';
    if (failure) {
      update.status = 'Failed';
      update.endedAt = world.clock.now();
      update.errors = [{ ...failure, resourceIds: [cluster.name] }];
      world.log({ cluster: cluster.name, component: 'eks', message: 'control plane update failed', updateId: update.id, errorCode: failure.errorCode });
      return;
    }
    cluster.previousVersion = { version: cluster.version, upgradedAt: world.clock.now() };
    cluster.lastRollback = undefined;
    cluster.version = version;
    // Auto Mode: EKS moves its nodes to the new version by itself from now on.
    cluster.autoModeTarget = undefined;
    cluster.platformVersion = latestPlatformVersionFor(version);
    cluster.store.gitVersion = apiServerVersionFor(version);
    update.status = 'Successful';
    update.endedAt = world.clock.now();
    world.log({ cluster: cluster.name, component: 'eks', message: 'control plane update succeeded', updateId: update.id, version });
  });
  return update;
}

/** EKS needs up to five free IPs in the cluster's subnets to swap control-plane ENIs. */
function freeIpFailure(world: SimWorld, cluster: SimCluster): { errorCode: string; errorMessage: string } | undefined {
  const free = cluster.subnetIds.map((id) => world.subnets.get(id)).reduce((sum, s) => sum + (s ? availableIps(s) : 0), 0);
  if (free >= 5) return undefined;
  return {
    errorCode: 'InsufficientFreeAddresses',
    errorMessage: `The cluster's subnets have ${free} free IP addresses; Amazon EKS needs at least 5 to update the control plane.`,
  };
}
