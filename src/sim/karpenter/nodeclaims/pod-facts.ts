import type { KubeObject } from '../../../kube-types/kube-object.js';
import { cpuMillis, memoryBytes, type Resources } from './resource-quantity.js';

/**
 * What Karpenter reads from pods: their requests (max of init containers vs the sum of containers, as the
 * scheduler computes them), who owns them, and whether they still need a node.
 */
export function podRequests(pod: KubeObject): Resources {
  const sum = (containers: any[] | undefined) =>
    (containers ?? []).reduce(
      (total, container) => ({
        cpu: total.cpu + cpuMillis(container?.resources?.requests?.cpu),
        memory: total.memory + memoryBytes(container?.resources?.requests?.memory),
      }),
      { cpu: 0, memory: 0 },
    );
  const main = sum(pod.spec?.containers);
  const init = (pod.spec?.initContainers ?? []).map((c: any) => sum([c]));
  const cpu = Math.max(main.cpu, ...init.map((r: { cpu: number }) => r.cpu));
  const memory = Math.max(main.memory, ...init.map((r: { memory: number }) => r.memory));
  return { cpu, memory, pods: 1 };
}

export function podKey(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

export function isDaemonSetPod(pod: KubeObject): boolean {
  return (pod.metadata.ownerReferences ?? []).some((owner) => owner.kind === 'DaemonSet');
}

export function isTerminal(pod: KubeObject): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export function isDeleting(object: KubeObject): boolean {
  return Boolean(object.metadata.deletionTimestamp);
}

/** Pods Karpenter must find a new home for when their node goes away (its "reschedulable" pods). */
export function isReschedulable(pod: KubeObject): boolean {
  return !isTerminal(pod) && !isDeleting(pod) && !isDaemonSetPod(pod);
}

/** A pod no node has taken yet. */
export function isPending(pod: KubeObject): boolean {
  return !pod.spec?.nodeName && !isTerminal(pod) && !isDeleting(pod) && !isDaemonSetPod(pod);
}

/**
 * What Karpenter provisions for (pkg/utils/pod IsProvisionable): pending pods the kube-scheduler has already
 * tried and marked PodScheduled=False/Unschedulable. Pods of other schedulers (Fargate) never qualify.
 */
export function isProvisionable(pod: KubeObject): boolean {
  const scheduled = (pod.status?.conditions ?? []).find((c: { type: string }) => c.type === 'PodScheduled');
  return isPending(pod) && scheduled?.status === 'False' && scheduled?.reason === 'Unschedulable';
}

/** Pods that hold resources on their node (everything bound and not finished). */
export function occupiesNode(pod: KubeObject): boolean {
  return Boolean(pod.spec?.nodeName) && !isTerminal(pod);
}

export function hasDoNotDisrupt(object: KubeObject): boolean {
  return object.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true';
}
