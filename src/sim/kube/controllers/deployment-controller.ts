/**
 * Deployment and ReplicaSet controllers in one: a ReplicaSet `<deploy>-<pod-template-hash>` per template, pods
 * `<rs>-<5 chars>` owned by it, rolling updates by planRollout (new pod first, old one deleted once the new is
 * Ready), deleted or evicted pods replaced, and the status kubectl prints (READY, UP-TO-DATE, AVAILABLE).
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import { isoSeconds, type SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { cloneJson, deepEqual } from '../objects/deep-equal.js';
import { podTemplateHash } from '../objects/kube-names.js';
import { createReplicaSetPod, replicaSetEvent } from './replicaset-controller.js';
import { selectorMatches } from '../api/label-selector.js';
import { isPodReady } from './pdb-status.js';
import { controllerRef, ownerReference } from '../objects/pod-owners.js';
import { isTerminating, ownedBy, podFromTemplate } from './pod-template.js';
import { startReconcileLoop } from './reconcile-loop.js';
import { RETRY_CREATE_AFTER_MS } from './create-named-pod.js';
import { planRollout, surgeAndUnavailable } from './rollout-plan.js';

const REVISION = 'deployment.kubernetes.io/revision';

function revisionOf(rs: KubeObject): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? 0);
}

function condition(type: string, status: string, reason: string, message: string, now: string, old?: any) {
  const transition = old && old.status === status ? old.lastTransitionTime : now;
  return { type, status, lastUpdateTime: old && old.reason === reason ? old.lastUpdateTime : now, lastTransitionTime: transition, reason, message };
}

/** Returns whether a pod it wanted could not be created (every name it drew was taken): the pass must come again. */
function reconcileDeployment(store: SimKubeStoreImpl, clock: SimClock, d: KubeObject, allRs: KubeObject[], allPods: KubeObject[]): boolean {
  const namespace = d.metadata.namespace!;
  const replicas: number = d.spec?.replicas ?? 1;
  const hash = podTemplateHash(d.spec?.template);
  const now = isoSeconds(clock.now());
  // Pods made before the controller first saw the deployment (a seeded scenario) are as old as it is.
  const firstSight = d.status?.observedGeneration === undefined ? d.metadata.creationTimestamp : undefined;
  const owned = allRs.filter((rs) => rs.metadata.namespace === namespace && ownedBy(rs, d));
  let newRs = owned.find((rs) => rs.metadata.labels?.['pod-template-hash'] === hash);
  const template = cloneJson(d.spec?.template ?? {});
  template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), 'pod-template-hash': hash } };
  if (!newRs) {
    newRs = store.create('replicasets', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace,
        labels: template.metadata.labels,
        annotations: { [REVISION]: String(Math.max(0, ...owned.map(revisionOf)) + 1) },
        ownerReferences: [ownerReference(d)],
        ...(firstSight ? { creationTimestamp: firstSight } : {}),
      },
      spec: {
        replicas: 0,
        minReadySeconds: d.spec?.minReadySeconds ?? 0,
        selector: { ...(d.spec?.selector ?? {}), matchLabels: { ...(d.spec?.selector?.matchLabels ?? {}), 'pod-template-hash': hash } },
        template,
      },
    });
    owned.push(newRs);
  }
  const rsNames = new Set(owned.map((rs) => rs.metadata.name));
  const pods: KubeObject[] = [];
  for (const pod of allPods) {
    if (pod.metadata.namespace !== namespace) continue;
    const ref = controllerRef(pod);
    if (ref?.kind === 'ReplicaSet' && rsNames.has(ref.name)) pods.push(pod);
    else if (!ref && selectorMatches(d.spec?.selector, pod.metadata.labels)) {
      // Adopt a bare pod the selector matches, into the ReplicaSet of its template hash.
      const target = owned.find((rs) => rs.metadata.labels?.['pod-template-hash'] === pod.metadata.labels?.['pod-template-hash']) ?? newRs;
      const adopted = store.mutate('pods', pod.metadata.name, namespace, (p) => {
        p.metadata.ownerReferences = [...(p.metadata.ownerReferences ?? []), ownerReference(target)];
        p.metadata.labels = { ...(p.metadata.labels ?? {}), 'pod-template-hash': target.metadata.labels?.['pod-template-hash'] ?? hash };
      });
      if (adopted) pods.push(adopted);
    }
  }
  const rsOf = (pod: KubeObject) => controllerRef(pod)!.name;
  const live = pods.filter((p) => !isTerminating(p));
  const plan = (p: KubeObject) => ({ name: p.metadata.name, ready: isPodReady(p), scheduled: Boolean(p.spec?.nodeName), createdAt: Date.parse(String(p.metadata.creationTimestamp)) });
  const newPods = live.filter((p) => rsOf(p) === newRs!.metadata.name);
  const oldPods = live.filter((p) => rsOf(p) !== newRs!.metadata.name);
  const step = planRollout({
    replicas,
    strategy: d.spec?.strategy,
    newPods: newPods.map(plan),
    oldPods: oldPods.map(plan),
    oldTerminating: pods.filter((p) => isTerminating(p) && rsOf(p) !== newRs!.metadata.name).length,
  });

  let short = false;
  for (let i = 0; i < step.create; i++) {
    if (!createReplicaSetPod(store, newRs, (name) => podFromTemplate(template, newRs, name, { creationTimestamp: firstSight }))) short = true;
  }
  const deleted = new Set(step.delete);
  for (const name of step.delete) {
    const pod = live.find((p) => p.metadata.name === name)!;
    store.deleteGracefully('pods', name, namespace);
    const rs = owned.find((r) => r.metadata.name === rsOf(pod));
    if (rs) replicaSetEvent(store, rs, 'SuccessfulDelete', `Deleted pod: ${name}`);
  }

  // ReplicaSet specs and statuses follow the pods.
  const { maxSurge } = surgeAndUnavailable(replicas, d.spec?.strategy);
  for (const rs of owned) {
    const mine = live.filter((p) => rsOf(p) === rs.metadata.name && !deleted.has(p.metadata.name));
    const want = mine.length + (rs === newRs ? step.create : 0);
    const ready = mine.filter(isPodReady).length;
    const before: number = rs.spec?.replicas ?? 0;
    const updated = store.mutate('replicasets', rs.metadata.name, namespace, (r) => {
      r.spec.replicas = want;
      r.metadata.annotations = {
        ...(r.metadata.annotations ?? {}),
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + maxSurge),
      };
      r.status = { replicas: mine.length, fullyLabeledReplicas: mine.length, readyReplicas: ready, availableReplicas: ready, observedGeneration: r.metadata.generation };
    });
    if (updated && before !== want) {
      store.recordEvent({
        namespace,
        involvedObject: { kind: 'Deployment', name: d.metadata.name, namespace, uid: d.metadata.uid },
        reason: 'ScalingReplicaSet',
        message: `Scaled ${want > before ? 'up' : 'down'} replica set ${rs.metadata.name} from ${before} to ${want}`,
        component: 'deployment-controller',
      });
    }
  }

  const current = live.filter((p) => !deleted.has(p.metadata.name));
  const readyCount = current.filter(isPodReady).length;
  const updatedCount = current.filter((p) => rsOf(p) === newRs!.metadata.name).length + step.create;
  const { maxUnavailable } = surgeAndUnavailable(replicas, d.spec?.strategy);
  const complete = updatedCount === replicas && current.length + step.create === replicas && readyCount === replicas;
  store.mutate('deployments', d.metadata.name, namespace, (dep) => {
    dep.metadata.annotations = { ...(dep.metadata.annotations ?? {}), [REVISION]: newRs!.metadata.annotations?.[REVISION] ?? '1' };
    const old: any[] = dep.status?.conditions ?? [];
    const available = readyCount >= replicas - maxUnavailable;
    const next = {
      observedGeneration: dep.metadata.generation,
      replicas: current.length + step.create,
      updatedReplicas: updatedCount,
      readyReplicas: readyCount,
      availableReplicas: readyCount,
      ...(replicas - readyCount > 0 ? { unavailableReplicas: replicas - readyCount } : {}),
      conditions: [
        available
          ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now, old.find((c) => c.type === 'Available'))
          : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now, old.find((c) => c.type === 'Available')),
        complete
          ? condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${newRs!.metadata.name}" has successfully progressed.`, now, old.find((c) => c.type === 'Progressing'))
          : condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${newRs!.metadata.name}" is progressing.`, now, old.find((c) => c.type === 'Progressing')),
      ],
    };
    if (!deepEqual(dep.status, next)) dep.status = next;
  });
  return short;
}

export function startDeploymentController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    const replicaSets = store.list('replicasets');
    const pods = store.list('pods');
    let retry = false;
    for (const d of store.list('deployments')) {
      if (isTerminating(d)) continue;
      if (reconcileDeployment(store, clock, d, replicaSets, pods)) retry = true;
    }
    if (retry) loop.triggerAfter(RETRY_CREATE_AFTER_MS);
    // Old ReplicaSets with no pods beyond revisionHistoryLimit are cleaned up.
    for (const d of store.list('deployments')) {
      const limit = d.spec?.revisionHistoryLimit ?? 10;
      const idle = store
        .list('replicasets', d.metadata.namespace)
        .filter((rs) => ownedBy(rs, d) && (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0)
        .sort((a, b) => revisionOf(a) - revisionOf(b));
      const latest = Math.max(0, ...store.list('replicasets', d.metadata.namespace).filter((rs) => ownedBy(rs, d)).map(revisionOf));
      const removable = idle.filter((rs) => revisionOf(rs) !== latest);
      for (const rs of removable.slice(0, Math.max(0, removable.length - limit))) store.delete('replicasets', rs.metadata.name, rs.metadata.namespace);
    }
  };
  const loop = startReconcileLoop(store, clock, ['deployments', 'replicasets', 'pods'], run, 'deployment');
  return () => loop.stop();
}
