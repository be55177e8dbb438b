import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../../kube/kube-store.js';
import type { SimClock } from '../../sim-clock.js';
import { parseGoDuration } from '../disruption/cron-schedule.js';
import { DISRUPTED_TAINT, EXCLUDE_LB_LABEL, TERMINATION_FINALIZER } from '../karpenter-keys.js';
import type { KarpenterTelemetry } from '../karpenter-telemetry.js';
import { isDaemonSetPod, isTerminal, podKey } from './pod-facts.js';
import { toleratesTaint, type Taint, type Toleration } from './scheduling-rules.js';
import { getCondition, setCondition } from '../status-conditions.js';

/**
 * Karpenter's termination of a deleted NodeClaim (pkg/controllers/node/termination): taint the node
 * karpenter.sh/disrupted:NoSchedule, exclude it from load balancers, evict its pods through the eviction API
 * (a 429 from a PDB is retried with exponential backoff and reported as FailedDraining), wait at least 5 s once
 * drained, delete the Node, then drop the NodeClaim's finalizer so it goes too.
 */
export interface Terminator {
  /** Works on every deleting NodeClaim; returns true while any is still terminating. */
  reconcile(): boolean;
}

const DRAINED_WAIT_MS = 5_000;
const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 10_000;

interface Retry {
  attempts: number;
  nextAt: number;
}

export function createTerminator(deps: { store: SimKubeStore; clock: SimClock; telemetry: KarpenterTelemetry }): Terminator {
  const { store, clock, telemetry } = deps;
  const retries = new Map<string, Retry>();

  // Pods that tolerate the disrupted taint would just come back, so Karpenter leaves them for node deletion.
  const needsEviction = (pod: KubeObject) =>
    !isTerminal(pod) && !isDaemonSetPod(pod) &&
    !(pod.spec?.tolerations ?? []).some((t: Toleration) => toleratesTaint(t, DISRUPTED_TAINT as Taint));

  function prepareNode(node: KubeObject): void {
    const taints: Taint[] = node.spec?.taints ?? [];
    const tainted = taints.some((t) => t.key === DISRUPTED_TAINT.key);
    if (tainted && node.metadata.labels?.[EXCLUDE_LB_LABEL] === 'karpenter') return;
    store.mutate('nodes', node.metadata.name, undefined, (object) => {
      if (!tainted) object.spec.taints = [...(object.spec.taints ?? []), { ...DISRUPTED_TAINT }];
      object.metadata.labels = { ...(object.metadata.labels ?? {}), [EXCLUDE_LB_LABEL]: 'karpenter' };
    });
    if (!tainted) {
      telemetry.info('tainted node', 'node.termination', { Node: { name: node.metadata.name }, 'taint.Key': DISRUPTED_TAINT.key, 'taint.Value': '', 'taint.Effect': DISRUPTED_TAINT.effect });
    }
  }

  function evict(pod: KubeObject, node: KubeObject, reason: string): void {
    const key = podKey(pod);
    const retry = retries.get(key);
    if (retry && retry.nextAt > clock.now()) return;
    const result = store.evict(pod.metadata.namespace ?? 'default', pod.metadata.name);
    if (result.ok || result.code === 404) {
      retries.delete(key);
      if (result.ok) {
        telemetry.event({ kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid }, 'Evicted', `Evicted pod: ${reason}`);
      }
      return;
    }
    const attempts = (retry?.attempts ?? 0) + 1;
    retries.set(key, { attempts, nextAt: clock.now() + Math.min(BACKOFF_START_MS * 2 ** (attempts - 1), BACKOFF_MAX_MS) });
    const message = result.code === 429
      ? `Failed to drain node, evicting pod violates a PDB (Pod=${key})`
      : `Failed to drain node, evicting pod ${key}: ${result.message}`;
    telemetry.event({ kind: 'Node', name: node.metadata.name, uid: node.metadata.uid }, 'FailedDraining', message, { type: 'Warning', dedupeMs: 60_000 });
  }

  function finishClaim(claim: KubeObject, nodeName: string | undefined): void {
    store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      object.metadata.finalizers = ((object.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f !== TERMINATION_FINALIZER);
    });
    telemetry.info('deleted nodeclaim', 'nodeclaim.lifecycle', {
      ...telemetry.claimFields(claim.metadata.name), 'provider-id': claim.status?.providerID, ...(nodeName ? { Node: { name: nodeName } } : {}),
    });
  }

  function terminate(claim: KubeObject, pods: readonly KubeObject[]): boolean {
    const nodeName: string | undefined = claim.status?.nodeName;
    const node = nodeName ? store.get('nodes', nodeName) : undefined;
    if (!node) {
      finishClaim(claim, undefined);
      return false;
    }
    const reason = getCondition(claim, 'DisruptionReason')?.reason ?? 'Deleted';
    prepareNode(node);
    const onNode = pods.filter((pod) => pod.spec?.nodeName === node.metadata.name);
    const remaining = onNode.filter(needsEviction);
    const deletedAt = Date.parse(String(claim.metadata.deletionTimestamp));
    const grace = claim.spec?.terminationGracePeriod ? parseGoDuration(claim.spec.terminationGracePeriod) : undefined;
    if (grace !== undefined && clock.now() >= deletedAt + grace) {
      // terminationGracePeriod bounds the drain: past it, pods go regardless of PDBs and do-not-disrupt.
      for (const pod of remaining) store.delete('pods', pod.metadata.name, pod.metadata.namespace);
    } else {
      for (const pod of remaining) if (!pod.metadata.deletionTimestamp) evict(pod, node, reason);
    }
    if (remaining.length > 0) return true;
    store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      setCondition(object, { type: 'Drained', status: 'True' }, clock.now());
    });
    const drainedAt = Date.parse(getCondition(store.get('nodeclaims', claim.metadata.name)!, 'Drained')!.lastTransitionTime);
    if (clock.now() < drainedAt + DRAINED_WAIT_MS) return true;
    store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      setCondition(object, { type: 'VolumesDetached', status: 'True' }, clock.now());
      setCondition(object, { type: 'InstanceTerminating', status: 'True' }, clock.now());
    });
    // The instance is gone: its node object and the pods still bound to it (daemon sets) go with it.
    store.mutate('nodes', node.metadata.name, undefined, (object) => {
      object.metadata.finalizers = [];
    });
    store.delete('nodes', node.metadata.name);
    telemetry.info('deleted node', 'node.termination', { Node: { name: node.metadata.name } });
    for (const pod of onNode) store.delete('pods', pod.metadata.name, pod.metadata.namespace);
    finishClaim(claim, node.metadata.name);
    return false;
  }

  return {
    reconcile() {
      const deleting = store.read('nodeclaims').filter((claim) => claim.metadata.deletionTimestamp);
      if (deleting.length === 0) return false;
      const pods = store.read('pods');
      let busy = false;
      for (const claim of deleting) busy = terminate(claim, pods) || busy;
      return busy;
    },
  };
}
