import type { KubeObject } from '../../kube-types/kube-object.js';

/**
 * status.conditions as Karpenter's operatorpkg writes them: a condition keeps its lastTransitionTime until its
 * status changes; SetTrue uses the type as reason; Ready is the root condition, True only when every dependent
 * condition is True.
 */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** metav1.Time serializes to whole seconds. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function getCondition(object: KubeObject, type: string): Condition | undefined {
  return (object.status?.conditions ?? []).find((condition: Condition) => condition.type === type);
}

export function isConditionTrue(object: KubeObject, type: string): boolean {
  return getCondition(object, type)?.status === 'True';
}

/** Sets a condition in place; returns whether anything changed (so callers can skip no-op writes). */
export function setCondition(
  object: KubeObject,
  change: { type: string; status: Condition['status']; reason?: string; message?: string },
  now: number,
): boolean {
  object.status ??= {};
  object.status.conditions ??= [];
  const conditions: Condition[] = object.status.conditions;
  const reason = change.reason ?? (change.status === 'True' ? change.type : 'AwaitingReconciliation');
  const message = change.message ?? (change.status === 'Unknown' && !change.reason ? 'object is awaiting reconciliation' : '');
  const existing = conditions.find((condition) => condition.type === change.type);
  if (existing && existing.status === change.status && existing.reason === reason && existing.message === message) return false;
  const next: Condition = {
    type: change.type,
    status: change.status,
    reason,
    message,
    lastTransitionTime: existing && existing.status === change.status ? existing.lastTransitionTime : rfc3339(now),
    ...(object.metadata.generation !== undefined ? { observedGeneration: Number(object.metadata.generation) } : {}),
  };
  if (existing) conditions[conditions.indexOf(existing)] = next;
  else conditions.push(next);
  return true;
}

export function clearCondition(object: KubeObject, type: string): boolean {
  const conditions: Condition[] | undefined = object.status?.conditions;
  const index = conditions?.findIndex((condition) => condition.type === type) ?? -1;
  if (index < 0) return false;
  conditions!.splice(index, 1);
  return true;
}

/** Recomputes a root Ready condition from its dependents (NodeClaim: Launched, Registered, Initialized). */
export function refreshRootReady(object: KubeObject, dependents: string[], now: number): void {
  const unhealthy = dependents.map((type) => getCondition(object, type)).find((condition) => condition?.status !== 'True');
  if (!unhealthy) {
    setCondition(object, { type: 'Ready', status: 'True' }, now);
    return;
  }
  const status = unhealthy.status === 'False' ? 'False' : 'Unknown';
  setCondition(object, { type: 'Ready', status, reason: 'UnhealthyDependents', message: `${unhealthy.type}=${unhealthy.status}` }, now);
}
