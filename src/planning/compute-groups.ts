import type { KubeObject } from '../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from './cluster-snapshot.js';

/**
 * Which compute a node belongs to, from the labels EKS, Karpenter and eksctl put on it (karpenter.md, "Identifying
 * a node's compute type"), and the cluster's compute grouped that way: each managed node group, each Karpenter
 * NodePool, each self-managed group, each Fargate profile. Managed node groups and NodePools without nodes are
 * listed too, so a group scaled to zero still shows up.
 */
/** `auto-mode`: EKS Auto Mode nodes (compute-type auto): EKS itself replaces them when the control plane moves. */
export type ComputeType = 'managed-nodegroup' | 'karpenter' | 'self-managed' | 'fargate' | 'auto-mode';

export const COMPUTE_TYPES: readonly ComputeType[] = ['managed-nodegroup', 'karpenter', 'self-managed', 'fargate', 'auto-mode'];

export const COMPUTE_LABELS: Record<ComputeType, string> = {
  'managed-nodegroup': 'managed node group',
  karpenter: 'Karpenter NodePool',
  'self-managed': 'self-managed',
  fargate: 'Fargate',
  'auto-mode': 'Auto Mode NodePool',
};

export interface ComputeRef {
  type: ComputeType;
  name: string;
}

export interface ComputeGroup extends ComputeRef {
  nodes: KubeObject[];
}

export const SELF_MANAGED_UNNAMED = 'unlabelled nodes';

export function computeOfNode(node: KubeObject): ComputeRef {
  const labels = node.metadata.labels ?? {};
  if (labels['eks.amazonaws.com/compute-type'] === 'fargate') {
    return { type: 'fargate', name: labels['eks.amazonaws.com/fargate-profile'] ?? 'fargate' };
  }
  // Auto Mode nodes carry karpenter.sh/nodepool too; EKS, not the bot, moves them (issue 10).
  if (labels['eks.amazonaws.com/compute-type'] === 'auto') return { type: 'auto-mode', name: labels['karpenter.sh/nodepool'] ?? 'auto' };
  if (labels['eks.amazonaws.com/nodegroup']) return { type: 'managed-nodegroup', name: labels['eks.amazonaws.com/nodegroup'] };
  if (labels['karpenter.sh/nodepool']) return { type: 'karpenter', name: labels['karpenter.sh/nodepool'] };
  return { type: 'self-managed', name: labels['alpha.eksctl.io/nodegroup-name'] ?? labels['eks.amazonaws.com/self-managed-group'] ?? SELF_MANAGED_UNNAMED };
}

/** The EC2 instance behind a node, from its providerID (aws:///us-west-2a/i-0abc…). */
export function instanceIdOfNode(node: KubeObject): string | undefined {
  return /\/(i-[0-9a-f]+)$/.exec(String(node.spec?.providerID ?? ''))?.[1];
}

export function kubeletOf(node: KubeObject): string {
  return String(node.status?.nodeInfo?.kubeletVersion ?? 'unknown');
}

export function zoneOf(node: KubeObject | undefined): string | undefined {
  return node?.metadata.labels?.['topology.kubernetes.io/zone'] ?? node?.metadata.labels?.['failure-domain.beta.kubernetes.io/zone'];
}

export function computeGroups(snapshot: ClusterSnapshot): ComputeGroup[] {
  const groups = new Map<string, ComputeGroup>();
  const add = (ref: ComputeRef) => {
    const key = `${ref.type}/${ref.name}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ...ref, nodes: [] }));
    return group;
  };
  for (const ng of valueOr(snapshot.nodegroups, [])) add({ type: 'managed-nodegroup', name: ng.name });
  const karpenter = valueOr(snapshot.kube.karpenter, undefined);
  for (const pool of karpenter?.nodePools ?? []) add({ type: 'karpenter', name: pool.metadata.name });
  for (const node of valueOr(snapshot.kube.nodes, [])) add(computeOfNode(node)).nodes.push(node);
  return [...groups.values()].sort(
    (a, b) => COMPUTE_TYPES.indexOf(a.type) - COMPUTE_TYPES.indexOf(b.type) || a.name.localeCompare(b.name),
  );
}

/** Node name → node, and node name → the pods bound to it. */
export function indexNodes(snapshot: ClusterSnapshot): { byName: Map<string, KubeObject>; podsOn: Map<string, KubeObject[]> } {
  const byName = new Map(valueOr(snapshot.kube.nodes, []).map((node) => [node.metadata.name, node]));
  const podsOn = new Map<string, KubeObject[]>();
  for (const pod of valueOr(snapshot.kube.pods, [])) {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) continue;
    const list = podsOn.get(nodeName) ?? [];
    list.push(pod);
    podsOn.set(nodeName, list);
  }
  return { byName, podsOn };
}

/** Pods that will move when their node is replaced: running, not owned by a DaemonSet, not mirror/static pods. */
export function isEvictablePod(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if ((pod.metadata.ownerReferences ?? []).some((owner) => owner.kind === 'DaemonSet' || owner.kind === 'Node')) return false;
  return !pod.metadata.annotations?.['kubernetes.io/config.mirror'];
}

/** "orders/orders-5b97" */
export function podRef(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

/** The Deployment / StatefulSet … a pod belongs to, following a ReplicaSet to its Deployment by name. */
export function workloadOfPod(pod: KubeObject): { kind: string; namespace: string; name: string } | undefined {
  const owner = (pod.metadata.ownerReferences ?? []).find((ref) => ref.controller) ?? pod.metadata.ownerReferences?.[0];
  if (!owner) return undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  if (owner.kind === 'ReplicaSet') {
    // ReplicaSets of a Deployment are named <deployment>-<pod-template-hash>.
    const hash = pod.metadata.labels?.['pod-template-hash'];
    const name = hash && owner.name.endsWith(`-${hash}`) ? owner.name.slice(0, -hash.length - 1) : owner.name.replace(/-[a-z0-9]{5,10}$/, '');
    return { kind: 'Deployment', namespace, name };
  }
  return { kind: owner.kind, namespace, name: owner.name };
}
