/**
 * DaemonSet controller: one pod `<name>-<5 chars>` per eligible node (nodeSelector/affinity and NoSchedule
 * taints; daemon pods tolerate not-ready, unreachable and unschedulable nodes as the controller adds those
 * tolerations), bound directly to its node, removed when the node goes or stops matching. kubectl drain refuses
 * nodes with daemon pods unless --ignore-daemonsets, as on a real cluster.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { deepEqual } from '../objects/deep-equal.js';
import { podTemplateHash } from '../objects/kube-names.js';
import { createNamedPod, RETRY_CREATE_AFTER_MS } from './create-named-pod.js';
import { isPodReady } from './pdb-status.js';
import { isTerminating, ownedBy, podFromTemplate } from './pod-template.js';
import { startReconcileLoop } from './reconcile-loop.js';
import { matchesNodeAffinity, tolerates } from './scheduler-fit.js';

const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function eligible(template: KubeObject, node: KubeObject): boolean {
  if (!matchesNodeAffinity(template, node)) return false;
  const tolerations = [...(template.spec?.tolerations ?? []), ...DAEMON_TOLERATIONS];
  return (node.spec?.taints ?? []).every((t: any) => t.effect === 'PreferNoSchedule' || tolerates(tolerations, t));
}

/** Returns whether a node's pod could not be created (every name it drew was taken): the pass must come again. */
function reconcileDaemonSet(store: SimKubeStoreImpl, ds: KubeObject, nodes: KubeObject[], allPods: KubeObject[]): boolean {
  const namespace = ds.metadata.namespace!;
  const hash = podTemplateHash(ds.spec?.template);
  const template = { metadata: ds.spec?.template?.metadata ?? {}, spec: { ...(ds.spec?.template?.spec ?? {}) } } as KubeObject;
  const mine = allPods.filter((p) => p.metadata.namespace === namespace && ownedBy(p, ds));
  const wanted = nodes.filter((n) => eligible(template, n));
  const wantedNames = new Set(wanted.map((n) => n.metadata.name));
  for (const pod of mine) {
    if (!isTerminating(pod) && !wantedNames.has(pod.spec?.nodeName)) store.deleteGracefully('pods', pod.metadata.name, namespace);
  }
  let rolling = false;
  let short = false;
  for (const node of wanted) {
    const onNode = mine.filter((p) => p.spec?.nodeName === node.metadata.name);
    if (onNode.length === 0) {
      const created = createNamedPod(
        store,
        ds.metadata.name,
        (name) => podFromTemplate(ds.spec?.template, ds, name, {
          labels: { 'controller-revision-hash': hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) },
          spec: {
            nodeName: node.metadata.name,
            tolerations: [...(ds.spec?.template?.spec?.tolerations ?? []), ...DAEMON_TOLERATIONS],
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.metadata.name] }] }] } } },
          },
        }),
        (message) => store.recordEvent({ namespace, involvedObject: { kind: 'DaemonSet', name: ds.metadata.name, namespace, uid: ds.metadata.uid }, reason: 'FailedCreate', message, type: 'Warning', component: 'daemonset-controller' }),
      );
      if (created === undefined) short = true;
      continue;
    }
    // A new template replaces one node's pod at a time (maxUnavailable 1).
    const stale = onNode.find((p) => !isTerminating(p) && p.metadata.labels?.['controller-revision-hash'] !== hash);
    if (stale && !rolling && mine.every((p) => isTerminating(p) || isPodReady(p))) {
      rolling = true;
      store.deleteGracefully('pods', stale.metadata.name, namespace);
    }
  }
  const live = mine.filter((p) => !isTerminating(p) && wantedNames.has(p.spec?.nodeName));
  const ready = live.filter(isPodReady).length;
  store.mutate('daemonsets', ds.metadata.name, namespace, (d) => {
    const next = {
      currentNumberScheduled: live.length,
      desiredNumberScheduled: wanted.length,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: ready,
      ...(wanted.length - ready > 0 ? { numberUnavailable: wanted.length - ready } : {}),
      updatedNumberScheduled: live.filter((p) => p.metadata.labels?.['controller-revision-hash'] === hash).length,
      observedGeneration: d.metadata.generation,
    };
    if (!deepEqual(d.status, next)) d.status = next;
  });
  return short;
}

export function startDaemonSetController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    const daemonSets = store.list('daemonsets');
    if (daemonSets.length === 0) return;
    const nodes = store.list('nodes').filter((n) => !isTerminating(n));
    const pods = store.list('pods');
    let retry = false;
    for (const ds of daemonSets) if (!isTerminating(ds) && reconcileDaemonSet(store, ds, nodes, pods)) retry = true;
    if (retry) loop.triggerAfter(RETRY_CREATE_AFTER_MS);
  };
  const loop = startReconcileLoop(store, clock, ['daemonsets', 'nodes', 'pods'], run, 'daemonset');
  return () => loop.stop();
}
