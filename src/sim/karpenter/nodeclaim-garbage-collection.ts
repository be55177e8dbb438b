import type { KubeObject } from '../../ports/kube-port.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import type { ClusterView } from './cluster-view.js';
import { NODEPOOL_LABEL, REGISTERED_LABEL } from './karpenter-keys.js';
import type { KarpenterTelemetry } from './karpenter-telemetry.js';
import { isConditionTrue } from './status-conditions.js';

/**
 * Keeps NodeClaims and Nodes paired when someone removes one of them behind Karpenter's back (kubectl delete
 * node, a NodeClaim deleted without its finalizer): a registered NodeClaim whose Node is gone is deleted, a
 * deleting Node takes its NodeClaim with it, and a Karpenter node whose NodeClaim no longer exists is removed.
 */
export function collectGarbage(store: SimKubeStore, view: ClusterView, telemetry: KarpenterTelemetry): void {
  for (const managed of view.managed) {
    const claim = managed.claim;
    if (claim.metadata.deletionTimestamp) continue;
    if (isConditionTrue(claim, 'Registered') && !managed.node) {
      telemetry.info('garbage collecting nodeclaim with no node', 'nodeclaim.garbagecollection', telemetry.claimFields(claim.metadata.name));
      store.delete('nodeclaims', claim.metadata.name);
    } else if (managed.node?.metadata.deletionTimestamp) {
      store.delete('nodeclaims', claim.metadata.name);
    }
  }
  const claimed = new Set(view.managed.flatMap((m) => (m.node ? [m.node.metadata.name] : [])));
  for (const node of view.nodes) {
    const labels = node.metadata.labels ?? {};
    if (!labels[NODEPOOL_LABEL] || labels[REGISTERED_LABEL] !== 'true' || claimed.has(node.metadata.name)) continue;
    removeOrphan(store, node, view);
    telemetry.info('deleted node', 'node.termination', { Node: { name: node.metadata.name } });
  }
}

function removeOrphan(store: SimKubeStore, node: KubeObject, view: ClusterView): void {
  store.mutate('nodes', node.metadata.name, undefined, (object) => {
    object.metadata.finalizers = [];
  });
  store.delete('nodes', node.metadata.name);
  for (const pod of view.podsByNode.get(node.metadata.name) ?? []) store.delete('pods', pod.metadata.name, pod.metadata.namespace);
}
