import type { KubeObject } from '../../../kube-types/kube-object.js';
import { COMPUTE_TYPE_LABEL } from './fargate-controller.js';
import { DRAIN_TIMEOUT_MS, drainNodes, waitForNodesGone, waitForNodesReady } from '../node-drain.js';
import { cordonNode, launchNode, terminateNode } from '../node-factory.js';
import { compareMinors, kubeletVersionFor } from './version-catalog.js';
import type { SimCluster, SimWorld } from '../world-types.js';

/**
 * EKS Auto Mode's node lifecycle as far as versions go: Auto Mode nodes (label eks.amazonaws.com/compute-type=auto,
 * karpenter.sh/nodepool) belong to EKS, which drifts them to the version it wants — the control plane's after an
 * upgrade, or N-1 first while a version rollback runs (rollback-automode: "drifts nodes towards the desired rollback
 * version … honoring configured disruption controls"). One node at a time (the built-in NodePools' budget on a small
 * cluster): a replacement at the wanted version is launched in the same NodePool and zone, then the old node is
 * cordoned and drained through the eviction API (PodDisruptionBudgets honoured; it waits as long as they block), then
 * terminated. A node annotated karpenter.sh/do-not-disrupt=true, or in a NodePool whose budget allows no drift
 * (`nodes: "0"`), is never disrupted. A node already mid-disruption
 * finishes when the wanted version changes (e.g. CancelUpdate).
 */

export const AUTO_COMPUTE_TYPE = 'auto';
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
/** How often the controller looks for nodes off the wanted version (simulated). */
export const AUTO_MODE_TICK_MS = 15_000;

export function isAutoModeNode(node: KubeObject): boolean {
  return node.metadata.labels?.[COMPUTE_TYPE_LABEL] === AUTO_COMPUTE_TYPE;
}

export function autoModeNodes(cluster: SimCluster): KubeObject[] {
  return cluster.store.list('nodes').filter(isAutoModeNode);
}

export function kubeletMinorOf(node: KubeObject): string | undefined {
  const match = /^v(\d+)\.(\d+)/.exec(node.status?.nodeInfo?.kubeletVersion ?? '');
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/** The minor Auto Mode nodes should run now. */
export function autoModeTarget(cluster: SimCluster): string {
  return cluster.autoModeTarget ?? cluster.version;
}

/** Auto Mode nodes whose kubelet is not the wanted minor (newer or older). */
export function autoModeNodesOffTarget(cluster: SimCluster, target = autoModeTarget(cluster)): KubeObject[] {
  return autoModeNodes(cluster).filter((node) => kubeletMinorOf(node) !== target);
}

/** Auto Mode nodes still newer than `minor` (what a rollback to `minor` waits for). */
export function autoModeNodesNewerThan(cluster: SimCluster, minor: string): KubeObject[] {
  return autoModeNodes(cluster).filter((node) => compareMinors(kubeletMinorOf(node) ?? minor, minor) > 0);
}

export interface AutoModeNodeInput {
  nodePool: string;
  instanceType: string;
  zone: string;
  minor: string;
  readyAfterMs?: number;
}

/** Launches one Auto Mode node (Bottlerocket-based, as EKS Auto Mode's nodes are). */
export function launchAutoModeNode(world: SimWorld, cluster: SimCluster, input: AutoModeNodeInput): string {
  const subnet = cluster.subnetIds.map((id) => world.subnets.get(id)).find((s) => s?.zone === input.zone) ?? world.subnets.get(cluster.subnetIds[0]);
  if (!subnet) throw new Error(`cluster ${cluster.name}: no subnet for an Auto Mode node in ${input.zone}`);
  return launchNode(world, {
    cluster,
    subnet,
    instanceType: input.instanceType,
    kubeletVersion: kubeletVersionFor(input.minor),
    osImage: `Bottlerocket (EKS Auto, Standard) 2025.7.15 (aws-k8s-${input.minor})`,
    labels: {
      [COMPUTE_TYPE_LABEL]: AUTO_COMPUTE_TYPE,
      [NODEPOOL_LABEL]: input.nodePool,
      'eks.amazonaws.com/nodeclass': 'default',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/registered': 'true',
      'karpenter.sh/initialized': 'true',
    },
    taints: input.nodePool === 'system' ? [{ key: 'CriticalAddonsOnly', effect: 'NoSchedule' }] : [],
    readyAfterMs: input.readyAfterMs,
    nameByInstanceId: true,
  });
}

/**
 * The built-in NodePools EKS creates on an Auto Mode cluster (karpenter.sh/v1, nodeClassRef to the eks.amazonaws.com
 * NodeClass `default`): what `kubectl get nodepools` shows there. A user may edit their disruption budgets.
 */
export function autoModeNodePool(name: string): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'eks' } },
    spec: {
      template: {
        metadata: {},
        spec: {
          nodeClassRef: { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'eks.amazonaws.com/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
            { key: 'eks.amazonaws.com/instance-generation', operator: 'Gt', values: ['4'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: name === 'system' ? ['amd64', 'arm64'] : ['amd64'] },
          ],
          ...(name === 'system' ? { taints: [{ key: 'CriticalAddonsOnly', effect: 'NoSchedule' }] } : {}),
          expireAfter: '336h',
          terminationGracePeriod: '24h0m0s',
        },
      },
      disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '30s', consolidationPolicy: 'WhenEmptyOrUnderutilized' },
    },
  } as KubeObject;
}

/** Whether a NodePool's budgets allow no drift disruption at all (a `nodes: "0"` budget for Drifted or every reason). */
export function nodePoolBlocksDrift(cluster: SimCluster, nodePool: string): boolean {
  const pool = cluster.store.get('nodepools', nodePool);
  const budgets: Array<{ nodes?: string; reasons?: string[]; schedule?: string }> = pool?.spec?.disruption?.budgets ?? [];
  return budgets.some((b) => !b.schedule && (b.nodes === '0' || b.nodes === '0%') && (!b.reasons?.length || b.reasons.includes('Drifted')));
}

/** Starts the controller for one Auto Mode cluster; returns its stop function. */
export function startAutoModeController(world: SimWorld, cluster: SimCluster): () => void {
  let stopped = false;
  const inFlight = new Set<string>();
  const log = (message: string, extra: Record<string, unknown> = {}) => world.log({ cluster: cluster.name, component: 'eks-auto-mode', message, ...extra });

  const replace = async (old: KubeObject, target: string): Promise<void> => {
    const name = old.metadata.name;
    inFlight.add(name);
    try {
      const labels = old.metadata.labels ?? {};
      const replacement = launchAutoModeNode(world, cluster, {
        nodePool: labels[NODEPOOL_LABEL] ?? 'general-purpose',
        instanceType: labels['node.kubernetes.io/instance-type'] ?? 'c6a.large',
        zone: labels['topology.kubernetes.io/zone'] ?? '',
        minor: target,
        readyAfterMs: world.settings.nodeReadyMs,
      });
      log('drift: launched replacement', { node: name, replacement, version: target });
      if (!(await waitForNodesReady(world, cluster, [replacement], DRAIN_TIMEOUT_MS))) {
        log('drift: replacement never became Ready; terminating it', { replacement });
        terminateNode(world, cluster, replacement);
        return;
      }
      cordonNode(cluster, name);
      log('drift: draining', { node: name });
      await drainNodes(world, cluster, [name], { force: false, retryForever: true, cancelled: () => stopped || !cluster.store.get('nodes', name) });
      if (stopped) return;
      terminateNode(world, cluster, name);
      await waitForNodesGone(world, cluster, [name], DRAIN_TIMEOUT_MS);
      log('drift: replaced', { node: name, replacement, version: target });
    } finally {
      inFlight.delete(name);
    }
  };

  /** NodePool status as Auto Mode keeps it (resources.nodes, Ready), written only when the count changes. */
  const syncNodePools = () => {
    const nodes = autoModeNodes(cluster);
    for (const pool of cluster.computeConfig?.nodePools ?? []) {
      const count = String(nodes.filter((n) => n.metadata.labels?.[NODEPOOL_LABEL] === pool).length);
      const current = cluster.store.get('nodepools', pool);
      if (!current || current.status?.resources?.nodes === count) continue;
      cluster.store.mutate('nodepools', pool, undefined, (object) => {
        object.status = {
          ...object.status,
          resources: { ...object.status?.resources, nodes: count },
          conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date(world.clock.now()).toISOString() }],
        };
      });
    }
  };

  const tick = () => {
    if (!stopped) syncNodePools();
    if (stopped || !cluster.computeConfig?.enabled) return schedule();
    const target = autoModeTarget(cluster);
    // One disruption at a time; a node under do-not-disrupt is left alone.
    if (inFlight.size === 0) {
      const next = autoModeNodesOffTarget(cluster, target).find(
        (node) =>
          !inFlight.has(node.metadata.name) &&
          node.metadata.annotations?.[DO_NOT_DISRUPT] !== 'true' &&
          !node.metadata.deletionTimestamp &&
          !nodePoolBlocksDrift(cluster, node.metadata.labels?.[NODEPOOL_LABEL] ?? ''),
      );
      if (next) void replace(next, target);
    }
    schedule();
  };
  const schedule = () => {
    if (!stopped) world.after(AUTO_MODE_TICK_MS, tick);
  };
  syncNodePools();
  schedule();
  return () => {
    stopped = true;
  };
}
