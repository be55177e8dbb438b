import type { KubeObject } from '../../../kube-types/kube-object.js';
import {
  NODECLASS_HASH_ANNOTATION,
  NODECLASS_HASH_VERSION,
  NODECLASS_HASH_VERSION_ANNOTATION,
  NODEPOOL_HASH_ANNOTATION,
  NODEPOOL_HASH_VERSION,
  NODEPOOL_HASH_VERSION_ANNOTATION,
} from '../karpenter-keys.js';
import { requirementsMatch } from '../nodeclaims/scheduling-rules.js';
import { isConditionTrue } from '../status-conditions.js';
import { nodeClassHash, nodePoolHash } from '../template-hash.js';

/**
 * Why a NodeClaim has drifted from its NodePool / EC2NodeClass, in Karpenter's order (core pkg/controllers/nodeclaim/
 * disruption/drift.go, then the AWS provider's IsDrifted): static NodePool fields, requirements, static
 * EC2NodeClass fields, then the AMI. Undefined when it has not drifted or cannot be judged yet.
 */
export type DriftReason = 'NodePoolDrifted' | 'RequirementsDrifted' | 'NodeClassDrift' | 'AMIDrift';

export function driftReason(claim: KubeObject, nodePool: KubeObject | undefined, nodeClass: KubeObject | undefined): DriftReason | undefined {
  // Karpenter only judges launched NodeClaims: before launch there is no image to compare.
  if (!isConditionTrue(claim, 'Launched') || !nodePool) return undefined;
  const annotations = claim.metadata.annotations ?? {};
  if (
    annotations[NODEPOOL_HASH_VERSION_ANNOTATION] === NODEPOOL_HASH_VERSION &&
    annotations[NODEPOOL_HASH_ANNOTATION] !== undefined &&
    annotations[NODEPOOL_HASH_ANNOTATION] !== nodePoolHash(nodePool)
  ) {
    return 'NodePoolDrifted';
  }
  if (!requirementsMatch(claim.metadata.labels ?? {}, nodePool.spec?.template?.spec?.requirements)) return 'RequirementsDrifted';
  if (!nodeClass) return undefined;
  if (
    annotations[NODECLASS_HASH_VERSION_ANNOTATION] === NODECLASS_HASH_VERSION &&
    annotations[NODECLASS_HASH_ANNOTATION] !== undefined &&
    annotations[NODECLASS_HASH_ANNOTATION] !== nodeClassHash(nodeClass)
  ) {
    return 'NodeClassDrift';
  }
  const amis: Array<{ id: string }> = nodeClass.status?.amis ?? [];
  const imageID: string | undefined = claim.status?.imageID;
  // With no resolved images Karpenter cannot tell (it errors "no amis exist given constraints") and leaves it.
  if (imageID && amis.length > 0 && !amis.some((ami) => ami.id === imageID)) return 'AMIDrift';
  return undefined;
}
