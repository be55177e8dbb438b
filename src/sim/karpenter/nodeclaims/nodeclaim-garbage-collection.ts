import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../../kube/kube-store.js';
import type { ClusterView } from '../cluster-view.js';
import { DISRUPTED_TAINT, NODEPOOL_LABEL, REGISTERED_LABEL } from '../karpenter-keys.js';
import type { KarpenterTelemetry } from '../karpenter-telemetry.js';
import { clearCondition, isConditionTrue } from '../status-conditions.js';

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

/**
 * A node tainted karpenter.sh/disrupted that no command is disrupting any more (the controller was restarted, or a
 * command was dropped) would stay unschedulable and count against the budget forever. Karpenter removes such
 * taints idempotently on start; the sim does it every pass.
 */
export function releaseStaleDisruptions(store: SimKubeStore, view: ClusterView, marked: Set<string>): void {
  for (const managed of view.managed) {
    if (!managed.disruptedTaint || managed.deleting || marked.has(managed.claim.metadata.name) || !managed.node) continue;
    store.mutate('nodes', managed.node.metadata.name, undefined, (node) => {
      node.spec.taints = (node.spec.taints ?? []).filter((t: { key: string }) => t.key !== DISRUPTED_TAINT.key);
      if (node.spec.taints.length === 0) delete node.spec.taints;
    });
    store.mutate('nodeclaims', managed.claim.metadata.name, undefined, (claim) => {
      clearCondition(claim, 'DisruptionReason');
    });
  }
}

function removeOrphan(store: SimKubeStore, node: KubeObject, view: ClusterView): void {
  store.mutate('nodes', node.metadata.name, undefined, (object) => {
    object.metadata.finalizers = [];
  });
  store.delete('nodes', node.metadata.name);
  for (const pod of view.podsByNode.get(node.metadata.name) ?? []) store.delete('pods', pod.metadata.name, pod.metadata.namespace);
}
