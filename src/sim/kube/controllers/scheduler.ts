import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimClock } from '../../sim-clock.js';
import { isoSeconds, type SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { startReconcileLoop } from './reconcile-loop.js';
import { chooseNode, fitFailures, unschedulableMessage } from './scheduler-fit.js';

/**
 * The default scheduler: binds pending pods (spec.schedulerName default-scheduler, no nodeName) to a node that
 * passes the filters, oldest pod first. A pod that fits nowhere stays Pending with PodScheduled=False
 * (Unschedulable) and a FailedScheduling event, which is what Karpenter provisions for. Pods for another
 * scheduler (fargate-scheduler) are left to it.
 */
export function isActivePod(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function setScheduledCondition(pod: KubeObject, condition: Record<string, unknown>, now: number): void {
  const conditions: any[] = (pod.status.conditions ??= []);
  const index = conditions.findIndex((c) => c.type === 'PodScheduled');
  const old = conditions[index];
  const next = {
    type: 'PodScheduled',
    lastProbeTime: null,
    lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : isoSeconds(now),
    ...condition,
  };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
}

export function startScheduler(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    // Read-only, uncopied: binding goes through mutate.
    const pods = store.read('pods');
    const pending = pods
      .filter((p) => !p.spec?.nodeName && !p.metadata.deletionTimestamp && (p.spec?.schedulerName ?? 'default-scheduler') === 'default-scheduler' && isActivePod(p))
      .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) || a.metadata.name.localeCompare(b.metadata.name));
    if (pending.length === 0) return;
    const nodes = store.read('nodes').filter((n) => !n.metadata.deletionTimestamp);
    const onNode = new Map<string, KubeObject[]>(nodes.map((n) => [n.metadata.name, []]));
    for (const p of pods) if (p.spec?.nodeName && isActivePod(p)) onNode.get(p.spec.nodeName)?.push(p);

    for (const pod of pending) {
      const failures = nodes.map((node) => fitFailures(pod, node, onNode.get(node.metadata.name)!));
      const feasible = nodes.map((node, i) => ({ node, podsOnNode: onNode.get(node.metadata.name)!, ok: failures[i].length === 0 })).filter((e) => e.ok);
      const chosen = chooseNode(pod, feasible);
      const { name, namespace, uid } = pod.metadata;
      const involved = { kind: 'Pod', name, namespace, uid };
      if (chosen) {
        const bound = store.mutate('pods', name, namespace, (p) => {
          p.spec.nodeName = chosen.metadata.name;
          setScheduledCondition(p, { status: 'True' }, clock.now());
          delete p.status.nominatedNodeName;
        });
        if (bound) onNode.get(chosen.metadata.name)!.push(bound);
        store.recordEvent({ namespace, involvedObject: involved, reason: 'Scheduled', message: `Successfully assigned ${namespace}/${name} to ${chosen.metadata.name}`, component: 'default-scheduler' });
        continue;
      }
      const message = unschedulableMessage(failures);
      const previous = (pod.status?.conditions ?? []).find((c: any) => c.type === 'PodScheduled');
      if (previous?.status === 'False' && previous.message === message) continue;
      store.mutate('pods', name, namespace, (p) => {
        setScheduledCondition(p, { status: 'False', reason: 'Unschedulable', message }, clock.now());
      });
      store.recordEvent({ namespace, involvedObject: involved, reason: 'FailedScheduling', message, type: 'Warning', component: 'default-scheduler' });
    }
  };
  const loop = startReconcileLoop(store, clock, ['pods', 'nodes'], run, 'scheduler');
  return () => loop.stop();
}
