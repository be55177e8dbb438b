import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * The scheduling predicates Karpenter simulates before it launches or replaces a node: node selector requirements
 * against labels, a pod's nodeSelector and required node affinity, and tolerations against taints. Semantics as in
 * k8s.io/component-helpers/scheduling/corev1 (matching) and v1.Toleration.ToleratesTaint.
 */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  values?: string[];
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal' | string;
  value?: string;
  effect?: string;
}

export function requirementMatches(labels: Record<string, string>, requirement: Requirement): boolean {
  const value = labels[requirement.key];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}

export function requirementsMatch(labels: Record<string, string>, requirements: Requirement[] | undefined): boolean {
  return (requirements ?? []).every((requirement) => requirementMatches(labels, requirement));
}

/** nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity (terms are ORed). */
export function podSelectsLabels(pod: KubeObject, labels: Record<string, string>): boolean {
  const selector: Record<string, string> = pod.spec?.nodeSelector ?? {};
  if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) return false;
  const terms: Array<{ matchExpressions?: Requirement[] }> | undefined =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) => requirementsMatch(labels, term.matchExpressions));
}

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  // An empty key with operator Exists tolerates everything.
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** Whether the pod tolerates every taint that keeps pods off a node (NoSchedule and NoExecute). */
export function toleratesTaints(pod: KubeObject, taints: Taint[] | undefined): boolean {
  const tolerations: Toleration[] = pod.spec?.tolerations ?? [];
  return (taints ?? [])
    .filter((taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    .every((taint) => tolerations.some((toleration) => toleratesTaint(toleration, taint)));
}

/** Label selector (matchLabels + matchExpressions) of PDBs and deployments. An empty selector matches everything. */
export function selectorMatches(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: Requirement[] } | undefined,
  labels: Record<string, string>,
): boolean {
  if (!selector) return false;
  const exact = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return exact && requirementsMatch(labels, selector.matchExpressions);
}
