/**
 * What the kubelets and the node lifecycle controller do to pods: a pod bound to a Ready node shows
 * ContainerCreating, then runs and turns Ready a few sim-seconds later (pod IP from the node's subnet); pods on a
 * NotReady node lose Ready; pods whose node is gone are deleted (pod garbage collection). A Deployment marked to fail
 * on its node's kubelet minor (readiness-failures.ts) runs there with its readiness probe failing: Running, not Ready.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import { isoSeconds, type SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { randomHex } from '../objects/kube-names.js';
import { startReconcileLoop, type ReconcileLoop } from './reconcile-loop.js';
import { isNodeReady } from './scheduler-fit.js';
import { readinessFailureCheck } from './readiness-failures.js';

export const POD_STARTUP_MS = 3000;

const CONDITION_TYPES = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

function podIpFor(node: KubeObject, random: () => number): string {
  const internal = (node.status?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address ?? '10.0.0.1';
  const [a, b] = internal.split('.');
  return `${a}.${b}.${Math.floor(random() * 64)}.${2 + Math.floor(random() * 250)}`;
}

function setCondition(pod: KubeObject, type: string, status: string, now: string, reason?: string, message?: string): void {
  const conditions: any[] = (pod.status.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === type);
  const old = conditions[index];
  if (old && old.status === status && old.reason === reason) return;
  const next = { type, status, lastProbeTime: null, lastTransitionTime: now, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
  conditions.sort((x, y) => CONDITION_TYPES.indexOf(x.type) - CONDITION_TYPES.indexOf(y.type));
}

/** What the kubelet sets while a container's readiness probe fails (pkg/kubelet/status/generate.go). */
function probeFailing(pod: KubeObject): { reason: string; message: string } {
  const names = (pod.spec?.containers ?? []).map((c: any) => c.name).join(' ');
  return { reason: 'ContainersNotReady', message: `containers with unready status: [${names}]` };
}

function setReadiness(pod: KubeObject, ready: boolean, at: string, why?: { reason: string; message?: string }): void {
  for (const type of ['Ready', 'ContainersReady']) setCondition(pod, type, ready ? 'True' : 'False', at, why?.reason, why?.message);
  for (const c of pod.status.containerStatuses ?? []) c.ready = ready;
}

function startContainers(pod: KubeObject, node: KubeObject, store: SimKubeStoreImpl, now: number, failsReadiness: boolean): void {
  const at = isoSeconds(now);
  const ip = pod.status.podIP ?? podIpFor(node, store.random);
  const hostIP = (node.status?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address;
  pod.status.phase = 'Running';
  pod.status.startTime ??= at;
  pod.status.podIP = ip;
  pod.status.podIPs = [{ ip }];
  if (hostIP) {
    pod.status.hostIP = hostIP;
    pod.status.hostIPs = [{ ip: hostIP }];
  }
  for (const type of ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) setCondition(pod, type, 'True', at);
  pod.status.containerStatuses = (pod.spec.containers ?? []).map((c: any) => ({
    name: c.name,
    image: c.image,
    imageID: `${String(c.image).split(':')[0]}@sha256:${randomHex(store.random, 64)}`,
    containerID: `containerd://${randomHex(store.random, 64)}`,
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt: at } },
    lastState: {},
  }));
  if (failsReadiness) setReadiness(pod, false, at, probeFailing(pod));
}

function recordProbeFailure(store: SimKubeStoreImpl, pod: KubeObject): void {
  const { name, namespace, uid } = pod.metadata;
  const container = pod.spec?.containers?.[0]?.name ?? 'app';
  store.recordEvent({ namespace, involvedObject: { kind: 'Pod', name, namespace, uid, fieldPath: `spec.containers{${container}}` } as any, reason: 'Unhealthy', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503', type: 'Warning', component: 'kubelet' });
}

export function startKubeletController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const starting = new Map<string, () => void>(); // pod uid → cancel
  let loop: ReconcileLoop;

  const run = () => {
    // Read-only, uncopied: every change goes through mutate or delete.
    const nodes = new Map(store.read('nodes').map((n) => [n.metadata.name, n]));
    const failsReadiness = readinessFailureCheck(store);
    const live = new Set<string>();
    for (const pod of store.read('pods')) {
      const { name, namespace, uid } = pod.metadata;
      live.add(uid!);
      const nodeName = pod.spec?.nodeName;
      if (!nodeName) continue;
      const node = nodes.get(nodeName);
      if (!node) {
        store.delete('pods', name, namespace);
        continue;
      }
      if (pod.metadata.deletionTimestamp) continue;
      const phase = pod.status?.phase;
      const ready = isNodeReady(node);
      if (phase === 'Pending' && ready && !starting.has(uid!)) {
        const now = isoSeconds(clock.now());
        store.mutate('pods', name, namespace, (p) => {
          setCondition(p, 'PodScheduled', 'True', now);
          p.status.hostIP = (node.status?.addresses ?? []).find((a: any) => a.type === 'InternalIP')?.address;
          p.status.startTime ??= now;
          p.status.containerStatuses = (p.spec.containers ?? []).map((c: any) => ({
            name: c.name,
            image: c.image,
            imageID: '',
            ready: false,
            started: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
            lastState: {},
          }));
        });
        const cancel = clock.after(POD_STARTUP_MS, () => {
          starting.delete(uid!);
          const current = store.get('pods', name, namespace);
          const host = store.get('nodes', nodeName);
          if (!current || current.metadata.uid !== uid || current.metadata.deletionTimestamp) return;
          if (!host || !isNodeReady(host)) return loop.trigger();
          const failing = readinessFailureCheck(store)(current, host);
          store.mutate('pods', name, namespace, (p) => startContainers(p, host, store, clock.now(), failing));
          if (failing) recordProbeFailure(store, current);
          for (const c of current.spec?.containers ?? []) {
            const involved = { kind: 'Pod', name, namespace, uid };
            store.recordEvent({ namespace, involvedObject: { ...involved, fieldPath: `spec.containers{${c.name}}` } as any, reason: 'Pulled', message: `Container image "${c.image}" already present on machine`, component: 'kubelet' });
            store.recordEvent({ namespace, involvedObject: { ...involved, fieldPath: `spec.containers{${c.name}}` } as any, reason: 'Created', message: `Created container ${c.name}`, component: 'kubelet' });
            store.recordEvent({ namespace, involvedObject: { ...involved, fieldPath: `spec.containers{${c.name}}` } as any, reason: 'Started', message: `Started container ${c.name}`, component: 'kubelet' });
          }
        });
        starting.set(uid!, cancel);
        continue;
      }
      if (phase === 'Running') {
        // The node lifecycle controller marks pods on a NotReady node not ready; they come back with the node. A pod
        // failing its readiness probe on this node's kubelet is not ready either, and recovers once the fault clears.
        const podReady = (pod.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
        const probe = ready && failsReadiness(pod, node);
        const want = ready && !probe;
        const why = !ready ? { reason: 'NodeNotReady' } : probe ? probeFailing(pod) : undefined;
        const ours = podReady?.reason === 'NodeNotReady' || podReady?.reason === 'ContainersNotReady';
        if (podReady && (podReady.status === 'True') !== want && (want ? ours : true)) {
          store.mutate('pods', name, namespace, (p) => setReadiness(p, want, isoSeconds(clock.now()), why));
          if (probe) recordProbeFailure(store, pod);
        } else if (podReady && !want && podReady.reason !== why?.reason && ours && why) {
          // Not ready for the other reason now (the node came back but the probe fails, or the reverse).
          store.mutate('pods', name, namespace, (p) => setReadiness(p, false, isoSeconds(clock.now()), why));
        }
      }
    }
    for (const [uid, cancel] of starting) {
      if (!live.has(uid)) {
        cancel();
        starting.delete(uid);
      }
    }
  };
  // Deployments too: marking one to fail readiness (or clearing it) changes its pods on the next pass.
  loop = startReconcileLoop(store, clock, ['pods', 'nodes', 'deployments'], run, 'kubelet');
  return () => {
    loop.stop();
    for (const cancel of starting.values()) cancel();
  };
}
