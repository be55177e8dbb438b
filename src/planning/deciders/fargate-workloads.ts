import { compareMinor, minorOfKubelet, parseMinor } from '../../domain/minor-version.js';
import type { KubeObject } from '../../ports/kube-port.js';
import { matchesSelector } from '../label-selector.js';

/**
 * Which workloads to restart so their Fargate pods move to the target (pure). A Fargate pod keeps its node — and
 * that node's kubelet — for life, so the only way forward is a new pod: pods on Fargate nodes (label
 * eks.amazonaws.com/compute-type=fargate) whose kubelet is older than the target are grouped by the workload that
 * owns them (pod → ReplicaSet → Deployment, or a StatefulSet directly), which is restarted as
 * `kubectl rollout restart` does. Pods without such an owner are reported for the operator to recreate.
 */
export const FARGATE_LABEL = 'eks.amazonaws.com/compute-type';
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

export type WorkloadResource = 'deployments' | 'statefulsets';

export interface FargateWorkload {
  resource: WorkloadResource;
  namespace: string;
  name: string;
  /** Its pods on Fargate nodes below the target (namespace/name). */
  pods: string[];
}

export interface FargatePlan {
  fargateNodes: number;
  workloads: FargateWorkload[];
  /** Pods the bot cannot restart through an owner, each with why and what to do. */
  manual: string[];
}

export const workloadKey = (w: { resource: WorkloadResource; namespace: string; name: string }) => `${w.resource}/${w.namespace}/${w.name}`;
export const describeWorkload = (w: { resource: WorkloadResource; namespace: string; name: string }) =>
  `${w.resource === 'deployments' ? 'deployment' : 'statefulset'} ${w.namespace}/${w.name}`;

export function isFargateNode(node: KubeObject): boolean {
  return node.metadata.labels?.[FARGATE_LABEL] === 'fargate';
}

/**
 * Not at the target minor: older for an upgrade, newer after a rollback (issue 10: a Fargate pod keeps the version
 * its node started with; once the control plane is back at N-1, pods on N nodes are restarted to get N-1 nodes).
 */
export function isBehind(node: KubeObject | undefined, target: string): boolean {
  const kubelet = minorOfKubelet(String(node?.status?.nodeInfo?.kubeletVersion ?? ''));
  const wanted = parseMinor(target);
  return !!kubelet && !!wanted && compareMinor(kubelet, wanted) !== 0;
}

const podName = (pod: KubeObject) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;

function ownerOf(pod: KubeObject, replicaSets: KubeObject[]): { workload?: Omit<FargateWorkload, 'pods'>; manual?: string } {
  const namespace = pod.metadata.namespace ?? 'default';
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.controller) ?? pod.metadata.ownerReferences?.[0];
  if (!owner) return { manual: `${podName(pod)} has no owner: delete it and create it again to move it to a new Fargate node` };
  if (owner.kind === 'StatefulSet') return { workload: { resource: 'statefulsets', namespace, name: owner.name } };
  if (owner.kind === 'ReplicaSet') {
    const rs = replicaSets.find((candidate) => candidate.metadata.namespace === namespace && candidate.metadata.name === owner.name);
    const deployment = rs?.metadata.ownerReferences?.find((ref) => ref.kind === 'Deployment');
    if (deployment) return { workload: { resource: 'deployments', namespace, name: deployment.name } };
    return { manual: `${podName(pod)} belongs to ReplicaSet ${owner.name} without a Deployment: delete the pod and its ReplicaSet recreates it on a new node` };
  }
  if (owner.kind === 'Job') return { manual: `${podName(pod)} is a run of Job ${owner.name}: it finishes on its node; later runs start on new nodes` };
  return { manual: `${podName(pod)} is managed by ${owner.kind} ${owner.name}: restart it the way that controller allows` };
}

export function planFargateRestarts(input: { nodes: KubeObject[]; pods: KubeObject[]; replicaSets: KubeObject[]; target: string }): FargatePlan {
  const fargate = input.nodes.filter(isFargateNode);
  const behind = new Set(fargate.filter((node) => isBehind(node, input.target)).map((node) => node.metadata.name));
  const workloads = new Map<string, FargateWorkload>();
  const manual: string[] = [];
  for (const pod of input.pods) {
    if (!behind.has(pod.spec?.nodeName) || pod.metadata.deletionTimestamp) continue;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const found = ownerOf(pod, input.replicaSets);
    if (found.manual) manual.push(found.manual);
    if (!found.workload) continue;
    const key = workloadKey(found.workload);
    const entry = workloads.get(key) ?? { ...found.workload, pods: [] };
    entry.pods.push(podName(pod));
    workloads.set(key, entry);
  }
  return {
    fargateNodes: fargate.length,
    workloads: [...workloads.values()].sort((a, b) => workloadKey(a).localeCompare(workloadKey(b))),
    manual: manual.sort(),
  };
}

/**
 * A restarted workload is done when its controller has rolled the new template out (observed generation, every
 * replica updated and available / ready) and each of its live pods runs Ready on a Fargate node at the target.
 */
export interface RolloutState {
  done: boolean;
  wanted: number;
  /** Pods Ready on a Fargate node at the target. */
  moved: number;
  /** Pods still on an old node (including ones terminating). */
  old: number;
}

export function rolloutState(input: { workload: KubeObject | undefined; resource: WorkloadResource; pods: KubeObject[]; nodes: KubeObject[]; target: string }): RolloutState {
  const { workload } = input;
  if (!workload) return { done: true, wanted: 0, moved: 0, old: 0 }; // deleted meanwhile: nothing left to move
  const wanted = Number(workload.spec?.replicas ?? 1);
  const nodes = new Map(input.nodes.map((node) => [node.metadata.name, node]));
  const mine = input.pods.filter((pod) => pod.metadata.namespace === workload.metadata.namespace && matchesSelector(workload.spec?.selector, pod.metadata.labels));
  const onTarget = (pod: KubeObject) => {
    const node = nodes.get(pod.spec?.nodeName);
    return !!node && isFargateNode(node) && !isBehind(node, input.target);
  };
  const ready = (pod: KubeObject) => (pod.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
  const moved = mine.filter((pod) => !pod.metadata.deletionTimestamp && onTarget(pod) && ready(pod)).length;
  const old = mine.filter((pod) => !onTarget(pod)).length;
  const status = workload.status ?? {};
  const observed = Number(status.observedGeneration ?? 0) >= Number(workload.metadata.generation ?? 0);
  const rolled =
    input.resource === 'statefulsets'
      ? status.updatedReplicas === wanted && status.readyReplicas === wanted && status.currentRevision === status.updateRevision
      : status.updatedReplicas === wanted && status.availableReplicas === wanted && Number(status.replicas ?? wanted) === wanted;
  return { done: observed && rolled && old === 0 && moved >= wanted, wanted, moved, old };
}
