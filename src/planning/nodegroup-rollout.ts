import type { KubeObject } from '../ports/kube-port.js';
import { isNodeReady, kubeletMinorOf } from '../domain/node-status.js';

export { isNodeReady };

/**
 * Where a managed node group's rollout to a new minor stands, from its Node objects and the pods on them (both kept
 * by watches): new nodes Ready or still joining, old nodes waiting, cordoned and draining, drained (on their way
 * out), and, once the rollout is done, that every node of the group is at the target and Ready. Pure, so the step
 * can recompute it on every watch event and a test can feed it objects.
 */
export const NODEGROUP_LABEL = 'eks.amazonaws.com/nodegroup';

export interface RolloutCounts {
  /** The group's size before the update (the denominator of "2/2 nodes at 1.31"). */
  desired: number;
  readyAtTarget: number;
  /** Nodes at the target that are not Ready yet (joining, or failing). */
  joiningAtTarget: number;
  /** Old nodes not yet cordoned. */
  waiting: number;
  /** Old nodes cordoned, Ready, with pods still to evict. */
  draining: number;
  /** Old nodes cordoned with nothing left to evict, or already NotReady: being terminated. */
  drained: number;
  /** "ip-1 (v1.30.14-eks-…, NotReady)" for every node that keeps the group from being rolled out. */
  laggards: string[];
}

/** A pod a drain has to move: not a DaemonSet's, not a static (mirror) pod, not finished. */
export function isEvictablePod(pod: KubeObject): boolean {
  if ((pod.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'DaemonSet')) return false;
  if (pod.metadata.annotations?.['kubernetes.io/config.mirror']) return false;
  return !['Succeeded', 'Failed'].includes(pod.status?.phase);
}

export function nodesOfGroup(nodes: KubeObject[], group: string): KubeObject[] {
  return nodes.filter((node) => node.metadata.labels?.[NODEGROUP_LABEL] === group);
}

/** Evictable pods per node name. */
export function podsByNode(pods: KubeObject[]): Map<string, KubeObject[]> {
  const byNode = new Map<string, KubeObject[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node || !isEvictablePod(pod)) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
}

export function countRollout(nodes: KubeObject[], pods: Map<string, KubeObject[]>, target: string, desired: number): RolloutCounts {
  const counts: RolloutCounts = { desired, readyAtTarget: 0, joiningAtTarget: 0, waiting: 0, draining: 0, drained: 0, laggards: [] };
  for (const node of nodes) {
    const ready = isNodeReady(node);
    const minor = kubeletMinorOf(node);
    if (minor === target && !node.metadata.deletionTimestamp) {
      if (ready) counts.readyAtTarget++;
      else counts.joiningAtTarget++;
    } else if (!node.spec?.unschedulable && ready) counts.waiting++;
    else if (ready && (pods.get(node.metadata.name)?.length ?? 0) > 0) counts.draining++;
    else counts.drained++;
    if (minor !== target || !ready) {
      counts.laggards.push(`${node.metadata.name} (${String(node.status?.nodeInfo?.kubeletVersion ?? 'kubelet version unknown')}, ${ready ? 'Ready' : 'NotReady'})`);
    }
  }
  return counts;
}

export const oldNodesOf = (counts: RolloutCounts) => counts.waiting + counts.draining + counts.drained;

/** Every node of the group is at the target and Ready (an empty group counts as rolled out). */
export function isRolledOut(counts: RolloutCounts): boolean {
  return counts.laggards.length === 0;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "Node group demo-ng: 2/2 nodes at 1.31 (1 old node draining, 1 old node waiting)" */
export function describeRollout(group: string, target: string, counts: RolloutCounts): string {
  const total = Math.max(counts.desired, counts.readyAtTarget);
  const parts: string[] = [];
  if (counts.joiningAtTarget) parts.push(`${counts.joiningAtTarget} joining`);
  if (counts.draining) parts.push(`${plural(counts.draining, 'old node')} draining`);
  if (counts.drained) parts.push(`${plural(counts.drained, 'old node')} drained, terminating`);
  if (counts.waiting) parts.push(`${plural(counts.waiting, 'old node')} waiting`);
  return `Node group ${group}: ${counts.readyAtTarget}/${total} ${total === 1 ? 'node' : 'nodes'} at ${target}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * Where the pods of a blue/green move landed: "14 pods on 3 nodes (orders ×3, checkout ×2, …)", counting the
 * evictable pods on the given nodes by namespace.
 */
export function describeLanding(nodeNames: string[], pods: Map<string, KubeObject[]>): { count: number; text: string } {
  const landed = nodeNames.flatMap((name) => pods.get(name) ?? []);
  const byNamespace = new Map<string, number>();
  for (const pod of landed) byNamespace.set(pod.metadata.namespace ?? 'default', (byNamespace.get(pod.metadata.namespace ?? 'default') ?? 0) + 1);
  const namespaces = [...byNamespace.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = namespaces.slice(0, 8).map(([namespace, n]) => `${namespace} ×${n}`);
  if (namespaces.length > 8) shown.push(`${namespaces.length - 8} more namespace(s)`);
  return { count: landed.length, text: `${plural(landed.length, 'pod')} on ${plural(nodeNames.length, 'node')}${shown.length ? ` (${shown.join(', ')})` : ''}` };
}
