/**
 * Keeps an EC2NodeClass's status current: status.amis from its selector terms (aliases follow the cluster's minor)
 * and the conditions Karpenter's nodeclass controller maintains. Writes only when something changed, so watchers
 * see one MODIFIED event per real change.
 */

import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import { resolveAmis } from './ami-resolution.js';
import { NODECLASS_HASH_ANNOTATION, NODECLASS_HASH_VERSION, NODECLASS_HASH_VERSION_ANNOTATION } from './karpenter-keys.js';
import { refreshRootReady, setCondition } from './status-conditions.js';
import { nodeClassHash } from './template-hash.js';

const DEPENDENTS = ['AMIsReady', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded'];

export function desiredNodeClassStatus(nodeClass: KubeObject, clusterMinor: string, now: number): KubeObject['status'] {
  const draft: KubeObject = { metadata: { ...nodeClass.metadata }, status: structuredClone(nodeClass.status ?? {}) };
  const terms: Array<Record<string, any>> = nodeClass.spec?.amiSelectorTerms ?? [];
  const amis = resolveAmis(terms, clusterMinor);
  draft.status.amis = amis;
  if (terms.length === 0) {
    setCondition(draft, { type: 'AMIsReady', status: 'False', reason: 'AMINotFound', message: 'AMISelectorTerms is empty' }, now);
  } else if (amis.length === 0) {
    setCondition(draft, { type: 'AMIsReady', status: 'False', reason: 'AMINotFound', message: 'AMISelector did not match any AMIs' }, now);
  } else {
    setCondition(draft, { type: 'AMIsReady', status: 'True' }, now);
  }
  // Subnets, security groups and the instance profile are not modelled; they are always found.
  for (const type of DEPENDENTS.slice(1)) setCondition(draft, { type, status: 'True' }, now);
  refreshRootReady(draft, DEPENDENTS, now);
  return draft.status;
}

/** Returns true when the node class was written. */
export function reconcileNodeClassStatus(store: SimKubeStore, nodeClass: KubeObject, clusterMinor: string, now: number): boolean {
  const desired = desiredNodeClassStatus(nodeClass, clusterMinor, now);
  const hash = nodeClassHash(nodeClass);
  const annotations = nodeClass.metadata.annotations ?? {};
  const stamped = annotations[NODECLASS_HASH_ANNOTATION] === hash && annotations[NODECLASS_HASH_VERSION_ANNOTATION] === NODECLASS_HASH_VERSION;
  if (stamped && JSON.stringify(desired) === JSON.stringify(nodeClass.status ?? {})) return false;
  store.mutate('ec2nodeclasses', nodeClass.metadata.name, undefined, (object) => {
    object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [NODECLASS_HASH_ANNOTATION]: hash, [NODECLASS_HASH_VERSION_ANNOTATION]: NODECLASS_HASH_VERSION };
    object.status = desired;
  });
  return true;
}

export function nodeClassReady(nodeClass: KubeObject | undefined): boolean {
  return (nodeClass?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
}
