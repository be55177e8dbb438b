import type { KubeObject } from '../../../kube-types/kube-object.js';
import { selectorMatches } from '../api/label-selector.js';

/**
 * PodDisruptionBudget status arithmetic, as kube-controller-manager's disruption controller computes it
 * (pkg/controller/disruption/disruption.go): desiredHealthy from minAvailable or maxUnavailable (percentages
 * scaled against the controllers' replicas and rounded up), currentHealthy = ready pods that are neither
 * terminating nor recently evicted, disruptionsAllowed = max(currentHealthy − desiredHealthy, 0).
 */

/** Evictions the controller has not yet seen the pod deletion for expire after two minutes. */
export const DISRUPTED_POD_TIMEOUT_MS = 2 * 60 * 1000;

export function isPodReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

/** intstr.GetScaledValueFromIntOrPercent(value, total, roundUp). */
export function scaledValue(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const text = String(value).trim();
  if (!text.endsWith('%')) {
    const n = Number(text);
    if (Number.isInteger(n)) return n;
    throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage: ${text}`);
  }
  const percent = Number(text.slice(0, -1));
  if (!Number.isFinite(percent)) throw new Error(`invalid value "${text}": not a percentage`);
  const raw = (percent * total) / 100;
  return roundUp ? Math.ceil(raw) : Math.floor(raw);
}

export function pdbMatchesPod(pdb: KubeObject, pod: KubeObject): boolean {
  return pdb.metadata.namespace === pod.metadata.namespace && selectorMatches(pdb.spec?.selector, pod.metadata.labels);
}

export interface ControllerScale {
  /** Identity of the pod's controller (uid or kind/name), so each controller's replicas count once. */
  key: string;
  replicas: number;
}

/**
 * @param pods the pods in the PDB's namespace matching its selector
 * @param scaleOf the replicas of a pod's controller (deployment, statefulset, replicaset); undefined for bare pods
 */
export function computePdbStatus(
  pdb: KubeObject,
  pods: KubeObject[],
  scaleOf: (pod: KubeObject) => ControllerScale | undefined,
  now: number,
): Record<string, unknown> {
  const expectedScale = () => {
    const seen = new Map<string, number>();
    let bare = 0;
    for (const pod of pods) {
      const scale = scaleOf(pod);
      if (scale) seen.set(scale.key, scale.replicas);
      else bare++;
    }
    return [...seen.values()].reduce((a, b) => a + b, 0) + bare;
  };
  let expectedPods = 0;
  let desiredHealthy = 0;
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    expectedPods = expectedScale();
    desiredHealthy = Math.max(0, expectedPods - scaledValue(maxUnavailable, expectedPods, true));
  } else if (typeof minAvailable === 'number') {
    desiredHealthy = minAvailable;
    expectedPods = pods.length;
  } else if (minAvailable !== undefined && minAvailable !== null) {
    expectedPods = expectedScale();
    desiredHealthy = scaledValue(minAvailable, expectedPods, true);
  }

  // Evictions already granted but not yet visible as a terminating pod.
  const previous: Record<string, string> = pdb.status?.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  for (const pod of pods) {
    const at = previous[pod.metadata.name];
    if (!at || pod.metadata.deletionTimestamp) continue;
    if (Date.parse(at) + DISRUPTED_POD_TIMEOUT_MS > now) disruptedPods[pod.metadata.name] = at;
  }
  const currentHealthy = pods.filter(
    (pod) => !pod.metadata.deletionTimestamp && !disruptedPods[pod.metadata.name] && isPodReady(pod),
  ).length;
  let disruptionsAllowed = currentHealthy - desiredHealthy;
  // The controller insists on expectedPods > 0 so a PDB matching no pods yet is in a safe state.
  if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;

  const allowed = disruptionsAllowed > 0;
  const oldCondition = (pdb.status?.conditions ?? []).find((c: any) => c.type === 'DisruptionAllowed');
  const conditionStatus = allowed ? 'True' : 'False';
  const generation = pdb.metadata.generation as number | undefined;
  return {
    ...(Object.keys(disruptedPods).length ? { disruptedPods } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: [
      {
        type: 'DisruptionAllowed',
        status: conditionStatus,
        reason: allowed ? 'SufficientPods' : 'InsufficientPods',
        message: '',
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
        lastTransitionTime:
          oldCondition && oldCondition.status === conditionStatus ? oldCondition.lastTransitionTime : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    ],
  };
}
