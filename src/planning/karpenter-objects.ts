import { formatMinor, minorOfKubelet } from '../domain/minor-version.js';
import type { KubeObject } from '../ports/kube-port.js';

export { isNodeReady, kubeletMinorOf } from '../domain/node-status.js';

/**
 * How the Karpenter step reads NodeClaims and Nodes (karpenter.sh/v1, reference/karpenter.md "Objects"): the
 * labels, conditions and taints Karpenter writes, in one place so the decisions and the watcher spell them alike.
 */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const ARCH_LABEL = 'kubernetes.io/arch';
/** v1 taints the node it disrupts with karpenter.sh/disrupted; v1beta1 used karpenter.sh/disruption=disrupting. */
export const DISRUPTION_TAINT_KEYS: readonly string[] = ['karpenter.sh/disrupted', 'karpenter.sh/disruption'];

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

function conditionsOf(object: KubeObject): Condition[] {
  const conditions = object.status?.conditions;
  return Array.isArray(conditions) ? (conditions as Condition[]) : [];
}

export function conditionOf(object: KubeObject, type: string): Condition | undefined {
  return conditionsOf(object).find((condition) => condition.type === type);
}

export function isConditionTrue(object: KubeObject, type: string): boolean {
  return conditionOf(object, type)?.status === 'True';
}

export function poolOfClaim(claim: KubeObject): string | undefined {
  return claim.metadata.labels?.[NODEPOOL_LABEL];
}

export function poolOfNode(node: KubeObject): string | undefined {
  return node.metadata.labels?.[NODEPOOL_LABEL];
}

export function imageOfClaim(claim: KubeObject): string | undefined {
  const image = claim.status?.imageID;
  return typeof image === 'string' && image ? image : undefined;
}

export function nodeNameOfClaim(claim: KubeObject): string | undefined {
  const name = claim.status?.nodeName;
  return typeof name === 'string' && name ? name : undefined;
}

/** Ready = Launched ∧ Registered ∧ Initialized (v1); a claim being deleted no longer counts. */
export function isClaimReady(claim: KubeObject): boolean {
  return isConditionTrue(claim, 'Ready') && !claim.metadata.deletionTimestamp;
}

/**
 * A claim Karpenter is taking away: deleted (the termination controller drains it), or chosen for disruption
 * (DisruptionReason set before the replacement launches), or its node tainted for disruption.
 */
export function isClaimDisrupting(claim: KubeObject, node: KubeObject | undefined): boolean {
  return !!claim.metadata.deletionTimestamp || isConditionTrue(claim, 'DisruptionReason') || (!!node && isNodeDisrupted(node));
}

/**
 * Whether the node counts against its NodePool's disruption budget as Karpenter counts it: an initialized node
 * (label karpenter.sh/initialized) tainted for disruption. A replacement that never initialized and is taken away
 * again is tainted too, but Karpenter counts it for no budget, and neither do we ("at most N disrupted at once").
 */
export function isNodeDisruptingBudget(node: KubeObject): boolean {
  return node.metadata.labels?.['karpenter.sh/initialized'] === 'true' && isNodeDisrupted(node);
}

export function isNodeDisrupted(node: KubeObject): boolean {
  const taints: Array<{ key?: string }> = Array.isArray(node.spec?.taints) ? node.spec.taints : [];
  return taints.some((taint) => !!taint.key && DISRUPTION_TAINT_KEYS.includes(taint.key));
}

/** The names of conditions that are not True yet, for "has not become Ready" reports ("Registered: NodeNotFound"). */
export function pendingConditions(claim: KubeObject): string[] {
  return ['Launched', 'Registered', 'Initialized']
    .map((type) => ({ type, condition: conditionOf(claim, type) }))
    .filter(({ condition }) => condition?.status !== 'True')
    .map(({ type, condition }) => (condition?.reason && condition.reason !== type ? `${type}: ${condition.reason}` : `${type}: not yet`));
}

/** Karpenter writes creationTimestamp in RFC 3339; an unparsable one counts as "just now" (never reported early). */
export function createdAt(object: KubeObject, fallback: number): number {
  const parsed = Date.parse(String(object.metadata.creationTimestamp ?? ''));
  return Number.isFinite(parsed) ? parsed : fallback;
}
