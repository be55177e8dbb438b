import { describeFaults } from './aws/faults.js';
import { isNodeReady } from './aws/node-factory.js';
import { rollbackWindowOf } from './aws/eks/rollback-window.js';
import type { SimCluster, SimWorld } from './aws/world-types.js';
import { pdbMatchesPod } from './kube/controllers/pdb-status.js';
import { FAILS_READINESS_ANNOTATION } from './kube/controllers/readiness-failures.js';
import type { KubeObject } from '../kube-types/kube-object.js';

/**
 * GET /_sim/state: a summary of the simulated world for tests, the demo and the playground's cluster panel: the
 * control plane and its updates, node groups, add-ons, nodes with their kubelets, Karpenter NodeClaims, the
 * Deployments (available of desired, and the kubelet minor a workload fault breaks them on) and the
 * PodDisruptionBudgets with the pods each one currently protects from eviction.
 */
export const STUCK_PDB_ANNOTATION = 'sim.eks-upgrade.dev/stuck-from';

function safeList(cluster: SimCluster, resource: string): KubeObject[] {
  try {
    return cluster.store.list(resource);
  } catch {
    // A resource kind this cluster does not serve (no Karpenter CRDs) has nothing to list.
    return [];
  }
}

function conditionTrue(object: KubeObject, type: string): boolean {
  return (object.status?.conditions ?? []).some((c: { type?: string; status?: string }) => c.type === type && c.status === 'True');
}

function pdbSummary(cluster: SimCluster, pods: KubeObject[]) {
  return safeList(cluster, 'poddisruptionbudgets').map((pdb) => {
    const disruptionsAllowed = Number(pdb.status?.disruptionsAllowed ?? 0);
    const matching = pods.filter((pod) => pdbMatchesPod(pdb, pod) && !pod.metadata.deletionTimestamp);
    return {
      namespace: pdb.metadata.namespace,
      name: pdb.metadata.name,
      minAvailable: pdb.spec?.minAvailable,
      maxUnavailable: pdb.spec?.maxUnavailable,
      disruptionsAllowed,
      currentHealthy: pdb.status?.currentHealthy,
      desiredHealthy: pdb.status?.desiredHealthy,
      stuck: Boolean(pdb.metadata.annotations?.[STUCK_PDB_ANNOTATION]),
      // With no disruption allowed, an eviction of any of these pods is refused with 429: a drain waits on them.
      blockedPods: disruptionsAllowed > 0 ? [] : matching.map((pod) => ({ name: pod.metadata.name, node: pod.spec?.nodeName })),
    };
  });
}

function clusterState(world: SimWorld, cluster: SimCluster) {
  const pods = safeList(cluster, 'pods');
  return {
    name: cluster.name,
    region: cluster.region,
    version: cluster.version,
    platformVersion: cluster.platformVersion,
    status: cluster.status,
    unreachable: cluster.unreachable,
    gitVersion: cluster.store.gitVersion,
    updates: cluster.updates.map((u) => ({
      id: u.id, type: u.type, status: u.status, scope: u.scope, params: u.params, errors: u.errors,
      createdAt: new Date(u.createdAt).toISOString(), ...(u.endedAt !== undefined ? { endedAt: new Date(u.endedAt).toISOString() } : {}),
      ...(u.cancellation ? { cancellation: u.cancellation } : {}),
    })),
    /** The open or closed rollback window of the last in-place upgrade (ISO times), and the last rollback. */
    rollbackWindow: rollbackWindowOf(cluster) ? { version: rollbackWindowOf(cluster)!.version, upgradedAt: new Date(rollbackWindowOf(cluster)!.upgradedAt).toISOString(), closesAt: new Date(rollbackWindowOf(cluster)!.closesAt).toISOString() } : undefined,
    lastRollback: cluster.lastRollback ? { ...cluster.lastRollback, at: new Date(cluster.lastRollback.at).toISOString() } : undefined,
    computeConfig: cluster.computeConfig,
    autoModeTarget: cluster.computeConfig ? (cluster.autoModeTarget ?? cluster.version) : undefined,
    nodegroups: [...cluster.nodegroups.values()].map((ng) => ({
      name: ng.name, status: ng.status, version: ng.version, releaseVersion: ng.releaseVersion, scaling: ng.scaling, health: ng.healthIssues,
    })),
    addons: [...cluster.addons.values()].map((a) => ({ name: a.name, version: a.version, status: a.status })),
    autoScalingGroups: [...world.autoScalingGroups.values()].filter((g) => g.clusterName === cluster.name).map((g) => ({
      name: g.name, launchTemplate: g.launchTemplate, minSize: g.minSize, maxSize: g.maxSize, desiredCapacity: g.desiredCapacity,
      instances: [...g.instances.values()].map((i) => ({ instanceId: i.instanceId, node: i.nodeName, imageId: i.imageId, lifecycleState: i.lifecycleState, launchTemplateVersion: i.launchTemplateVersion })),
      refreshes: g.refreshes.map((r) => ({ id: r.id, status: r.status, replaced: r.replaced, total: r.total })),
    })),
    nodes: cluster.store.list('nodes').map((n) => ({
      name: n.metadata.name,
      kubeletVersion: n.status?.nodeInfo?.kubeletVersion,
      ready: isNodeReady(n),
      unschedulable: Boolean(n.spec?.unschedulable),
      nodegroup: n.metadata.labels?.['eks.amazonaws.com/nodegroup'],
      nodepool: n.metadata.labels?.['karpenter.sh/nodepool'],
      computeType: n.metadata.labels?.['eks.amazonaws.com/compute-type'],
      pods: pods.filter((pod) => pod.spec?.nodeName === n.metadata.name).length,
    })),
    nodeclaims: safeList(cluster, 'nodeclaims').map((claim) => ({
      name: claim.metadata.name,
      nodepool: claim.metadata.labels?.['karpenter.sh/nodepool'],
      node: claim.status?.nodeName,
      ready: conditionTrue(claim, 'Ready'),
      drifted: conditionTrue(claim, 'Drifted'),
      deleting: Boolean(claim.metadata.deletionTimestamp),
    })),
    workloads: safeList(cluster, 'deployments').map((d) => ({
      namespace: d.metadata.namespace,
      name: d.metadata.name,
      replicas: d.spec?.replicas ?? 1,
      available: d.status?.availableReplicas ?? 0,
      failsReadinessOn: d.metadata.annotations?.[FAILS_READINESS_ANNOTATION] ?? null,
    })),
    pdbs: pdbSummary(cluster, pods),
  };
}

export function worldState(world: SimWorld): Record<string, unknown> {
  return {
    scenario: world.scenario.name,
    now: new Date(world.clock.now()).toISOString(),
    speed: world.clock.speed,
    canChangeSpeed: Boolean(world.clock.setSpeed),
    offeredVersions: world.offeredVersions(),
    faults: describeFaults(world.faults),
    clusters: [...world.clusters.values()].map((cluster) => clusterState(world, cluster)),
  };
}

/**
 * Makes a PodDisruptionBudget allow no disruption at all (minAvailable 100%), as a team that sets minAvailable to its
 * replica count does, so every drain through it blocks; `stuck: false` puts the original spec back.
 */
export function setPdbStuck(cluster: SimCluster, namespace: string, name: string, stuck: boolean): KubeObject | undefined {
  return cluster.store.mutate('poddisruptionbudgets', name, namespace, (pdb) => {
    const annotations = (pdb.metadata.annotations ??= {});
    const saved = annotations[STUCK_PDB_ANNOTATION];
    if (stuck && !saved) {
      annotations[STUCK_PDB_ANNOTATION] = JSON.stringify({ minAvailable: pdb.spec?.minAvailable, maxUnavailable: pdb.spec?.maxUnavailable });
      delete pdb.spec.maxUnavailable;
      pdb.spec.minAvailable = '100%';
    } else if (!stuck && saved) {
      const original = JSON.parse(saved) as { minAvailable?: number | string; maxUnavailable?: number | string };
      delete pdb.spec.minAvailable;
      delete pdb.spec.maxUnavailable;
      if (original.minAvailable !== undefined) pdb.spec.minAvailable = original.minAvailable;
      if (original.maxUnavailable !== undefined) pdb.spec.maxUnavailable = original.maxUnavailable;
      delete annotations[STUCK_PDB_ANNOTATION];
    }
  });
}
