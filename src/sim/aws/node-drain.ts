/**
 * Draining nodes the way EKS's node group updater does: evict every pod (DaemonSet pods excepted) through the
 * eviction API, which honours PodDisruptionBudgets with 429s; retry blocked evictions every 5 s; give up after
 * 15 minutes unless `force`, in which case a pod the PDB protects is deleted outright.
 */

import type { KubeObject } from '../../kube-types/kube-object.js';
import { isNodeReady } from './node-factory.js';
import type { SimCluster, SimWorld } from './world-types.js';

export const DRAIN_TIMEOUT_MS = 15 * 60_000;
export const EVICTION_RETRY_MS = 5_000;

export interface BlockedPod {
  pod: string; // namespace/name
  node: string;
  code: number;
  message: string;
}

export interface DrainOutcome {
  ok: boolean;
  blocked: BlockedPod[];
}

function isDaemonSetPod(pod: KubeObject): boolean {
  return (pod.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'DaemonSet');
}

const drainsFor = (pod: KubeObject) =>
  !isDaemonSetPod(pod) && !pod.metadata.annotations?.['kubernetes.io/config.mirror'] && !['Succeeded', 'Failed'].includes(pod.status?.phase);

/** Pods still on the node that a drain waits for (terminating ones included, DaemonSet and finished pods not). */
export function podsOnNode(cluster: SimCluster, nodeName: string): KubeObject[] {
  return cluster.store.list('pods').filter((pod) => pod.spec?.nodeName === nodeName && drainsFor(pod));
}

/**
 * The same for a batch of nodes, read once and uncopied. The simulator's CPU is simulated time at high --speed (at
 * 600×, 100 ms of work is a simulated minute): copying every pod of a 200-node group for each of 20 nodes, every 5 s
 * of retries, let the 15-minute eviction timeout run out before the evictions had a chance.
 */
function podsOnNodes(cluster: SimCluster, nodeNames: string[]): Array<{ node: string; pod: KubeObject }> {
  const wanted = new Set(nodeNames);
  return cluster.store.read('pods').filter((pod) => wanted.has(pod.spec?.nodeName) && drainsFor(pod)).map((pod) => ({ node: pod.spec.nodeName as string, pod }));
}

export interface DrainOptions {
  force: boolean;
  timeoutMs?: number;
  /** Keep retrying past the timeout (node group deletion); onTimeout is called once when it passes. */
  retryForever?: boolean;
  onTimeout?: (blocked: BlockedPod[]) => void;
  /** Stops the drain early (e.g. the node group was deleted meanwhile). */
  cancelled?: () => boolean;
}

export async function drainNodes(world: SimWorld, cluster: SimCluster, nodeNames: string[], options: DrainOptions): Promise<DrainOutcome> {
  const deadline = world.clock.now() + (options.timeoutMs ?? DRAIN_TIMEOUT_MS);
  let timedOut = false;
  for (;;) {
    if (options.cancelled?.()) return { ok: false, blocked: [] };
    const blocked: BlockedPod[] = [];
    let remaining = 0;
    for (const { node, pod } of podsOnNodes(cluster, nodeNames)) {
      remaining++;
      if (pod.metadata.deletionTimestamp) continue;
      const namespace = pod.metadata.namespace ?? 'default';
      const result = cluster.store.evict(namespace, pod.metadata.name);
      if (result.ok || result.code === 404) continue;
      if (options.force) {
        cluster.store.delete('pods', pod.metadata.name, namespace);
        continue;
      }
      blocked.push({ pod: `${namespace}/${pod.metadata.name}`, node, code: result.code, message: result.message });
    }
    if (remaining === 0) return { ok: true, blocked: [] };
    if (world.clock.now() >= deadline) {
      if (!options.retryForever) return { ok: false, blocked };
      if (!timedOut) options.onTimeout?.(blocked);
      timedOut = true;
    }
    await world.sleep(EVICTION_RETRY_MS);
  }
}

/** Waits until every named node reports Ready; false when `timeoutMs` passes first. */
/**
 * Real EKS ends a node-group update only once the old instances are terminated; the simulated termination deletes
 * the Node object on a timer, so wait until the objects are really gone rather than racing that timer.
 */
export async function waitForNodesGone(world: SimWorld, cluster: SimCluster, nodeNames: string[], timeoutMs: number): Promise<boolean> {
  const deadline = world.clock.now() + timeoutMs;
  for (;;) {
    if (nodeNames.every((name) => !cluster.store.get('nodes', name))) return true;
    if (world.clock.now() >= deadline) return false;
    await world.sleep(1_000);
  }
}

export async function waitForNodesReady(world: SimWorld, cluster: SimCluster, nodeNames: string[], timeoutMs: number): Promise<boolean> {
  const deadline = world.clock.now() + timeoutMs;
  for (;;) {
    const nodes = nodeNames.map((name) => cluster.store.get('nodes', name));
    if (nodes.every((node) => node && isNodeReady(node))) return true;
    if (world.clock.now() >= deadline) return false;
    await world.sleep(10_000);
  }
}
