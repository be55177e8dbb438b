import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import { isoSeconds, type SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { deepEqual } from '../objects/deep-equal.js';
import { createNamedPod, RETRY_CREATE_AFTER_MS } from './create-named-pod.js';
import { isPodReady } from './pdb-status.js';
import { controllerRef } from '../objects/pod-owners.js';
import { isTerminating, podFromTemplate } from './pod-template.js';
import { startReconcileLoop } from './reconcile-loop.js';

/**
 * The ReplicaSet controller for ReplicaSets no Deployment owns (the Deployment controller runs its own): keeps
 * spec.replicas pods `<rs>-<5 chars>` from the template, replaces deleted or evicted ones, removes extras, and
 * keeps the status kubectl prints (DESIRED, CURRENT, READY). Returns whether a pod it wanted could not be created
 * (every name it drew was taken): the pass must come again.
 */
function reconcile(store: SimKubeStoreImpl, clock: SimClock, rs: KubeObject, pods: KubeObject[]): boolean {
  const namespace = rs.metadata.namespace ?? 'default';
  const mine = pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace && controllerRef(p)?.kind === 'ReplicaSet' && controllerRef(p)?.name === rs.metadata.name);
  const live = mine.filter((p) => !isTerminating(p));
  const want = Number(rs.spec?.replicas ?? 1);
  let short = false;
  for (let i = live.length; i < want; i++) {
    if (!createReplicaSetPod(store, rs, (name) => podFromTemplate(rs.spec?.template ?? {}, rs, name, { creationTimestamp: isoSeconds(clock.now()) }))) short = true;
  }
  for (const extra of live.slice(want)) {
    store.deleteGracefully('pods', extra.metadata.name, namespace);
    replicaSetEvent(store, rs, 'SuccessfulDelete', `Deleted pod: ${extra.metadata.name}`);
  }
  const kept = live.slice(0, want);
  const ready = kept.filter(isPodReady).length;
  store.mutate('replicasets', rs.metadata.name, namespace, (r) => {
    const next = { replicas: kept.length, fullyLabeledReplicas: kept.length, readyReplicas: ready, availableReplicas: ready, observedGeneration: r.metadata.generation };
    if (!deepEqual(r.status, next)) r.status = next;
  });
  return short;
}

/** An Event about a ReplicaSet as the replicaset-controller records it (the Deployment controller's pods are its too). */
export function replicaSetEvent(store: SimKubeStoreImpl, rs: KubeObject, reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): void {
  const namespace = rs.metadata.namespace ?? 'default';
  store.recordEvent({ namespace, involvedObject: { kind: 'ReplicaSet', name: rs.metadata.name, namespace, uid: rs.metadata.uid }, reason, message, type, component: 'replicaset-controller' });
}

/**
 * Creates one pod of `rs` under a name of its own: a SuccessfulCreate, or a FailedCreate for each name already taken.
 * False when every name drawn was taken: the caller's loop comes back after RETRY_CREATE_AFTER_MS.
 */
export function createReplicaSetPod(store: SimKubeStoreImpl, rs: KubeObject, build: (name: string) => KubeObject): boolean {
  const name = createNamedPod(store, rs.metadata.name, build, (message) => replicaSetEvent(store, rs, 'FailedCreate', message, 'Warning'));
  if (name) replicaSetEvent(store, rs, 'SuccessfulCreate', `Created pod: ${name}`);
  return name !== undefined;
}

export function startReplicaSetController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    // Only ReplicaSets of their own (a Deployment's are reconciled by it): without any, no need to copy every pod.
    const own = store.list('replicasets').filter((rs) => !isTerminating(rs) && !(rs.metadata.ownerReferences ?? []).some((owner) => owner.kind === 'Deployment'));
    if (own.length === 0) return;
    const pods = store.list('pods');
    let retry = false;
    for (const rs of own) if (reconcile(store, clock, rs, pods)) retry = true;
    if (retry) loop.triggerAfter(RETRY_CREATE_AFTER_MS);
  };
  const loop = startReconcileLoop(store, clock, ['replicasets', 'pods'], run, 'replicaset');
  return () => loop.stop();
}
