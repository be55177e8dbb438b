import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { computeOfNode, indexNodes, isEvictablePod, workloadOfPod, type ComputeRef } from '../compute-groups.js';
import { matchesSelector } from '../label-selector.js';
import type { PlanPolicy } from '../plan-policy.js';

/**
 * The workloads (Deployments, StatefulSets, standalone ReplicaSets) with their pods, nodes and PDBs, for the
 * availability checks: what runs where, and what the plan does to those nodes, in words.
 */
export interface WorkloadView {
  kind: 'Deployment' | 'StatefulSet' | 'ReplicaSet';
  namespace: string;
  name: string;
  ref: string;
  object: KubeObject;
  replicas: number;
  pods: KubeObject[];
  pdbs: KubeObject[];
}

function keyOf(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The workload a pod belongs to; a ReplicaSet that no Deployment owns is a workload of its own. */
function ownerKey(pod: KubeObject, replicaSets: Map<string, KubeObject>): string | undefined {
  const owner = (pod.metadata.ownerReferences ?? []).find((ref) => ref.controller) ?? pod.metadata.ownerReferences?.[0];
  const namespace = pod.metadata.namespace ?? 'default';
  if (owner?.kind === 'ReplicaSet') {
    const rs = replicaSets.get(`${namespace}/${owner.name}`);
    const deployment = rs?.metadata.ownerReferences?.find((ref) => ref.kind === 'Deployment');
    if (rs && !deployment) return keyOf('ReplicaSet', namespace, owner.name);
    if (deployment) return keyOf('Deployment', namespace, deployment.name);
  }
  const workload = workloadOfPod(pod);
  return workload ? keyOf(workload.kind, namespace, workload.name) : undefined;
}

export function workloadViews(snapshot: ClusterSnapshot): WorkloadView[] {
  const kube = snapshot.kube;
  const replicaSets = new Map(valueOr(kube.replicasets ?? { ok: true, value: [] }, []).map((rs) => [`${rs.metadata.namespace ?? 'default'}/${rs.metadata.name}`, rs]));
  const views = new Map<string, WorkloadView>();
  const add = (kind: WorkloadView['kind'], object: KubeObject) => {
    const namespace = object.metadata.namespace ?? 'default';
    views.set(keyOf(kind, namespace, object.metadata.name), {
      kind,
      namespace,
      name: object.metadata.name,
      ref: `${kind.toLowerCase()}/${namespace}/${object.metadata.name}`,
      object,
      replicas: Number(object.spec?.replicas ?? 1),
      pods: [],
      pdbs: [],
    });
  };
  for (const d of valueOr(kube.deployments, [])) add('Deployment', d);
  for (const s of valueOr(kube.statefulsets, [])) add('StatefulSet', s);
  for (const rs of replicaSets.values()) if (!rs.metadata.ownerReferences?.some((ref) => ref.kind === 'Deployment')) add('ReplicaSet', rs);
  for (const pod of valueOr(kube.pods, []).filter(isEvictablePod)) {
    const key = ownerKey(pod, replicaSets);
    if (key) views.get(key)?.pods.push(pod);
  }
  const pdbs = valueOr(kube.pdbs, []);
  for (const view of views.values()) {
    view.pdbs = pdbs.filter(
      (pdb) => (pdb.metadata.namespace ?? 'default') === view.namespace && view.pods.some((pod) => matchesSelector(pdb.spec?.selector, pod.metadata.labels)),
    );
  }
  return [...views.values()];
}

export function isReady(pod: KubeObject): boolean {
  if (pod.status?.phase !== 'Running') return false;
  const conditions: Array<{ type: string; status: string }> = pod.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  return ready ? ready.status === 'True' : true;
}

/** "blue-mng's blue/green replacement drains", "NodePool default's drift replaces": what the plan does to a node. */
const possessive = (name: string) => (name.endsWith('s') ? `${name}'` : `${name}'s`);

export function planActionOn(ref: ComputeRef, policy: PlanPolicy): string {
  switch (ref.type) {
    case 'managed-nodegroup':
      return policy.nodegroup(ref.name).strategy === 'blue-green' ? `${possessive(ref.name)} blue/green replacement drains` : `${possessive(ref.name)} in-place update drains`;
    case 'karpenter':
      return `NodePool ${possessive(ref.name)} drift replaces`;
    case 'self-managed':
      return `the replacement of self-managed group ${ref.name} drains`;
    default:
      return 'the upgrade replaces';
  }
}

/** The compute of the node a pod runs on. */
export function podCompute(snapshot: ClusterSnapshot): (pod: KubeObject) => ComputeRef | undefined {
  const { byName } = indexNodes(snapshot);
  return (pod) => {
    const node = pod.spec?.nodeName ? byName.get(pod.spec.nodeName) : undefined;
    return node ? computeOfNode(node) : undefined;
  };
}
