import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { deepEqual } from '../objects/deep-equal.js';
import { podTemplateHash } from '../objects/kube-names.js';
import { isPodReady } from './pdb-status.js';
import { ownerReference } from '../objects/pod-owners.js';
import { isTerminating, ownedBy, podFromTemplate } from './pod-template.js';
import { startReconcileLoop } from './reconcile-loop.js';

/**
 * StatefulSet controller: pods `<name>-0 … <name>-(n-1)`, created in order (OrderedReady waits for each to be
 * Ready) or all at once (Parallel), recreated under the same name when deleted or evicted, removed from the top
 * when scaled down, replaced from the top one at a time when the template changes. volumeClaimTemplates get
 * their PVCs `<template>-<name>-<ordinal>`, bound at once.
 */
function ensureClaims(store: SimKubeStoreImpl, sts: KubeObject, ordinal: number): void {
  for (const claim of sts.spec?.volumeClaimTemplates ?? []) {
    const name = `${claim.metadata?.name}-${sts.metadata.name}-${ordinal}`;
    if (store.get('persistentvolumeclaims', name, sts.metadata.namespace)) continue;
    const created = store.create('persistentvolumeclaims', {
      metadata: { name, namespace: sts.metadata.namespace, labels: { ...(sts.spec?.selector?.matchLabels ?? {}) } },
      spec: { ...(claim.spec ?? {}) },
    });
    store.mutate('persistentvolumeclaims', name, sts.metadata.namespace, (pvc) => {
      pvc.spec.volumeName = `pvc-${created.metadata.uid}`;
      pvc.status = { phase: 'Bound', accessModes: pvc.spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage: pvc.spec.resources?.requests?.storage ?? '1Gi' } };
    });
  }
}

function reconcileStatefulSet(store: SimKubeStoreImpl, sts: KubeObject, allPods: KubeObject[]): void {
  const namespace = sts.metadata.namespace!;
  const name = sts.metadata.name;
  const replicas: number = sts.spec?.replicas ?? 1;
  const revision = `${name}-${podTemplateHash(sts.spec?.template)}`;
  const parallel = sts.spec?.podManagementPolicy === 'Parallel';
  const firstSight = sts.status?.observedGeneration === undefined ? sts.metadata.creationTimestamp : undefined;
  const pods = new Map<number, KubeObject>();
  for (const pod of allPods) {
    if (pod.metadata.namespace !== namespace || !ownedBy(pod, sts)) continue;
    const ordinal = Number(pod.metadata.name.slice(name.length + 1));
    if (pod.metadata.name.startsWith(`${name}-`) && Number.isInteger(ordinal)) pods.set(ordinal, pod);
  }

  let blocked = false;
  for (let ordinal = 0; ordinal < replicas; ordinal++) {
    const pod = pods.get(ordinal);
    if (!pod) {
      if (blocked) break;
      ensureClaims(store, sts, ordinal);
      const podName = `${name}-${ordinal}`;
      const claims = (sts.spec?.volumeClaimTemplates ?? []).map((c: any) => ({
        name: c.metadata?.name,
        persistentVolumeClaim: { claimName: `${c.metadata?.name}-${podName}` },
      }));
      const template = sts.spec?.template ?? {};
      store.create(
        'pods',
        podFromTemplate(template, sts, podName, {
          labels: { 'controller-revision-hash': revision, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(ordinal) },
          creationTimestamp: firstSight,
          spec: { hostname: podName, ...(sts.spec?.serviceName ? { subdomain: sts.spec.serviceName } : {}), ...(claims.length ? { volumes: [...(template.spec?.volumes ?? []), ...claims] } : {}) },
        }),
      );
      store.recordEvent({ namespace, involvedObject: { kind: 'StatefulSet', name, namespace, uid: sts.metadata.uid }, reason: 'SuccessfulCreate', message: `create Pod ${podName} in StatefulSet ${name} successful`, component: 'statefulset-controller' });
      if (!parallel) blocked = true;
      continue;
    }
    if (!parallel && (isTerminating(pod) || !isPodReady(pod))) blocked = true;
  }
  const all = [...pods.values()];
  const allReady = all.every((p) => !isTerminating(p) && isPodReady(p)) && all.length === replicas;
  // Scale down from the highest ordinal; then roll out a new template from the top, one pod at a time.
  const surplus = [...pods.keys()].filter((o) => o >= replicas).sort((a, b) => b - a);
  const victims = parallel ? surplus : surplus.slice(0, 1);
  for (const ordinal of victims) {
    const pod = pods.get(ordinal)!;
    if (!isTerminating(pod)) store.deleteGracefully('pods', pod.metadata.name, namespace);
  }
  if (surplus.length === 0 && allReady && sts.spec?.updateStrategy?.type !== 'OnDelete') {
    const stale = [...pods.entries()].filter(([, p]) => p.metadata.labels?.['controller-revision-hash'] !== revision).sort(([a], [b]) => b - a)[0];
    if (stale) store.deleteGracefully('pods', stale[1].metadata.name, namespace);
  }

  const live = all.filter((p) => !isTerminating(p));
  const ready = live.filter(isPodReady).length;
  const updated = live.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
  store.mutate('statefulsets', name, namespace, (s) => {
    const next = {
      observedGeneration: s.metadata.generation,
      replicas: live.length,
      readyReplicas: ready,
      currentReplicas: updated,
      updatedReplicas: updated,
      availableReplicas: ready,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    };
    if (!deepEqual(s.status, next)) s.status = next;
  });
}

export function startStatefulSetController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    // No StatefulSet, no need to copy every pod (most pod changes in a big drift concern none).
    const sets = store.list('statefulsets').filter((sts) => !isTerminating(sts));
    if (sets.length === 0) return;
    const pods = store.list('pods');
    for (const sts of sets) reconcileStatefulSet(store, sts, pods);
  };
  const loop = startReconcileLoop(store, clock, ['statefulsets', 'pods'], run, 'statefulset');
  return () => loop.stop();
}

