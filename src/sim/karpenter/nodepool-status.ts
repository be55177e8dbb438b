import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import type { ClusterView } from './cluster-view.js';
import { NODEPOOL_HASH_ANNOTATION, NODEPOOL_HASH_VERSION, NODEPOOL_HASH_VERSION_ANNOTATION } from './karpenter-keys.js';
import { nodeClassReady } from './nodeclass-status.js';
import { nodePoolHash } from './template-hash.js';
import { addResources, formatResourceList, NO_RESOURCES, readResourceList } from './nodeclaims/resource-quantity.js';
import { refreshRootReady, setCondition } from './status-conditions.js';

/**
 * NodePool status as Karpenter's nodepool controllers keep it: status.resources (the capacity of its nodes and
 * their count, which `kubectl get nodepools` prints as NODES) and the Ready / NodeClassReady conditions.
 * Written only on change, with the karpenter.sh/nodepool-hash annotation kept current.
 */
export function desiredNodePoolStatus(nodePool: KubeObject, view: ClusterView): KubeObject['status'] {
  const draft: KubeObject = { metadata: { ...nodePool.metadata }, status: structuredClone(nodePool.status ?? {}) };
  const claims = view.managed.filter((m) => m.pool === nodePool.metadata.name && m.claim.status?.capacity);
  const total = claims.reduce((sum, m) => addResources(sum, readResourceList(m.claim.status.capacity)), NO_RESOURCES);
  const formatted = formatResourceList(total);
  draft.status.resources = {
    cpu: formatted.cpu,
    'ephemeral-storage': `${claims.length * 20}Gi`,
    memory: formatted.memory,
    nodes: String(claims.length),
    pods: formatted.pods,
  };
  const nodeClassName = nodePool.spec?.template?.spec?.nodeClassRef?.name ?? '';
  const nodeClass = view.nodeClasses.get(nodeClassName);
  setCondition(draft, { type: 'ValidationSucceeded', status: 'True' }, view.now);
  if (nodeClassReady(nodeClass)) setCondition(draft, { type: 'NodeClassReady', status: 'True' }, view.now);
  else setCondition(draft, { type: 'NodeClassReady', status: 'False', reason: nodeClass ? 'NodeClassNotReady' : 'NodeClassNotFound', message: `EC2NodeClass "${nodeClassName}" ${nodeClass ? 'is not ready' : 'not found'}` }, view.now);
  refreshRootReady(draft, ['ValidationSucceeded', 'NodeClassReady'], view.now);
  return draft.status;
}

export function reconcileNodePoolStatus(store: SimKubeStore, nodePool: KubeObject, view: ClusterView): void {
  const desired = desiredNodePoolStatus(nodePool, view);
  // Karpenter also stamps the current template hash on the NodePool itself.
  const hash = nodePoolHash(nodePool);
  const annotations = nodePool.metadata.annotations ?? {};
  const stamped = annotations[NODEPOOL_HASH_ANNOTATION] === hash && annotations[NODEPOOL_HASH_VERSION_ANNOTATION] === NODEPOOL_HASH_VERSION;
  if (stamped && JSON.stringify(desired) === JSON.stringify(nodePool.status ?? {})) return;
  store.mutate('nodepools', nodePool.metadata.name, undefined, (object) => {
    object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [NODEPOOL_HASH_ANNOTATION]: hash, [NODEPOOL_HASH_VERSION_ANNOTATION]: NODEPOOL_HASH_VERSION };
    object.status = desired;
  });
}
