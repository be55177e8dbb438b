import type { KubeObject } from '../../../kube-types/kube-object.js';
import { matchesRequirement, type Requirement } from '../api/label-selector.js';
import { milliCpu, parseQuantity } from '../objects/quantity.js';

/**
 * The kube-scheduler filters this simulator plays, in the framework's order (the first failing plugin is the
 * node's reason): NodeUnschedulable, TaintToleration (NotReady nodes carry node.kubernetes.io/not-ready),
 * NodeAffinity (nodeSelector + required node affinity), NodeResourcesFit (cpu, memory, pod count). Reason texts
 * and the "0/3 nodes are available: …" message are kube-scheduler's.
 */
export interface PodRequests {
  cpu: number; // millicores
  memory: number; // bytes
}

export function podRequests(pod: KubeObject): PodRequests {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const requests = c.resources?.requests ?? c.resources?.limits ?? {};
    cpu += milliCpu(requests.cpu);
    memory += parseQuantity(requests.memory);
  }
  return { cpu, memory };
}

export function isNodeReady(node: KubeObject): boolean {
  return (node.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

/** Taints the scheduler sees: the node's own plus the ones the node lifecycle controller adds. */
export function effectiveTaints(node: KubeObject): any[] {
  const taints: any[] = [...(node.spec?.taints ?? [])];
  const add = (key: string) => {
    if (!taints.some((t) => t.key === key && t.effect === 'NoSchedule')) taints.push({ key, effect: 'NoSchedule' });
  };
  if (!isNodeReady(node)) add('node.kubernetes.io/not-ready');
  if (node.spec?.unschedulable) add('node.kubernetes.io/unschedulable');
  return taints;
}

export function tolerates(tolerations: any[] | undefined, taint: any): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === 'Exists';
    if (t.key !== taint.key) return false;
    return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
  });
}

function nodeSelectorTermMatches(term: any, node: KubeObject): boolean {
  const expressions: any[] = term?.matchExpressions ?? [];
  const fields: any[] = term?.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  return (
    expressions.every((e) => matchesRequirement(node.metadata.labels, { key: e.key, operator: e.operator, values: (e.values ?? []).map(String) } as Requirement)) &&
    fields.every((f) => matchesRequirement({ 'metadata.name': node.metadata.name }, { key: f.key, operator: f.operator, values: f.values ?? [] } as Requirement))
  );
}

export function matchesNodeAffinity(pod: KubeObject, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries<string>(pod.spec?.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const terms: any[] | undefined = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return !terms || terms.some((term) => nodeSelectorTermMatches(term, node));
}

/** Why `pod` cannot go to `node` given the pods already there; empty when it fits. */
export function fitFailures(pod: KubeObject, node: KubeObject, podsOnNode: KubeObject[]): string[] {
  const tolerations = pod.spec?.tolerations;
  if (node.spec?.unschedulable && !tolerates(tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) {
    return ['node(s) were unschedulable'];
  }
  const untolerated = effectiveTaints(node).find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && t.key !== 'node.kubernetes.io/unschedulable' && !tolerates(tolerations, t),
  );
  if (untolerated) return [`node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`];
  if (!matchesNodeAffinity(pod, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  const allocatable = node.status?.allocatable ?? node.status?.capacity ?? {};
  const want = podRequests(pod);
  const used = podsOnNode.map(podRequests).reduce((a, b) => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory }), { cpu: 0, memory: 0 });
  const failures: string[] = [];
  if (allocatable.pods !== undefined && podsOnNode.length + 1 > parseQuantity(allocatable.pods)) failures.push('Too many pods');
  if (want.cpu > 0 && used.cpu + want.cpu > milliCpu(allocatable.cpu)) failures.push('Insufficient cpu');
  if (want.memory > 0 && used.memory + want.memory > parseQuantity(allocatable.memory)) failures.push('Insufficient memory');
  return failures;
}

const RESOURCE_REASONS = new Set(['Too many pods', 'Insufficient cpu', 'Insufficient memory']);

function countedReasons(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts]
    .map(([reason, n]) => `${n} ${reason}`)
    .sort()
    .join(', ');
}

/** The FailedScheduling message for a pod that fits no node, with the preemption postscript. */
export function unschedulableMessage(failuresByNode: string[][]): string {
  const total = failuresByNode.length;
  if (total === 0) return 'no nodes available to schedule pods';
  const preemption = failuresByNode.map((f) =>
    f.some((r) => RESOURCE_REASONS.has(r)) ? 'No preemption victims found for incoming pod.' : 'Preemption is not helpful for scheduling.',
  );
  return (
    `0/${total} nodes are available: ${countedReasons(failuresByNode.flat())}. ` +
    `preemption: 0/${total} nodes are available: ${countedReasons(preemption.map((p) => p.replace(/\.$/, '')))}.`
  );
}

/** The node the scheduler would pick: spread replicas of one owner, then least allocated CPU, then name. */
export function chooseNode(pod: KubeObject, feasible: Array<{ node: KubeObject; podsOnNode: KubeObject[] }>): KubeObject | undefined {
  const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller)?.uid ?? (pod.metadata.ownerReferences ?? [])[0]?.name;
  const score = (entry: { node: KubeObject; podsOnNode: KubeObject[] }) => {
    const siblings = owner ? entry.podsOnNode.filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === owner || r.name === owner)).length : 0;
    const cpu = milliCpu((entry.node.status?.allocatable ?? {}).cpu) || 1;
    const used = entry.podsOnNode.map(podRequests).reduce((a, b) => a + b.cpu, 0);
    return { siblings, load: used / cpu };
  };
  return [...feasible]
    .map((entry) => ({ entry, s: score(entry) }))
    .sort((a, b) => a.s.siblings - b.s.siblings || a.s.load - b.s.load || (a.entry.node.metadata.name < b.entry.node.metadata.name ? -1 : 1))[0]?.entry.node;
}
