import { isoSeconds } from '../iso-seconds.js';
import type { SimKubeStoreImpl } from '../kube-store.js';
import { decideEviction } from './eviction.js';
import { kubeStatus, notFound, type KubeStatus } from './kube-status.js';
import { computePdbStatus, pdbMatchesPod } from '../controllers/pdb-status.js';
import { podControllerScale } from '../objects/pod-owners.js';
import { resourceType } from '../objects/resource-registry.js';

/**
 * Carries out POST …/pods/{name}/eviction on the store. PDB status is brought up to date first (the disruption
 * controller would have done so within moments), then the decision is applied: a granted eviction takes one
 * disruption from the budget, records the pod in disruptedPods, marks the pod DisruptionTarget and deletes it
 * gracefully.
 */
export function evictPod(store: SimKubeStoreImpl, namespace: string, name: string): KubeStatus {
  const pod = store.get('pods', name, namespace);
  if (!pod) return notFound(resourceType('pods')!, name);
  const now = store.clock.now();
  const inNamespace = store.read('pods', namespace);
  const pdbs = store
    .read('poddisruptionbudgets', namespace)
    .filter((pdb) => pdbMatchesPod(pdb, pod))
    .map((pdb) => {
      const status = computePdbStatus(pdb, inNamespace.filter((p) => pdbMatchesPod(pdb, p)), (p) => podControllerScale(store, p), now);
      return store.mutate('poddisruptionbudgets', pdb.metadata.name, namespace, (o) => {
        o.status = status;
      })!;
    });

  const decision = decideEviction(pod, pdbs);
  if (decision.action === 'refuse') return decision.status;
  if (decision.action === 'delete-and-decrement') {
    store.mutate('poddisruptionbudgets', decision.pdb.metadata.name, namespace, (pdb) => {
      pdb.status.disruptionsAllowed -= 1;
      pdb.status.disruptedPods = { ...(pdb.status.disruptedPods ?? {}), [name]: isoSeconds(now) };
      if (pdb.status.disruptionsAllowed === 0) {
        const condition = (pdb.status.conditions ?? []).find((c: any) => c.type === 'DisruptionAllowed');
        if (condition) Object.assign(condition, { status: 'False', reason: 'InsufficientPods', lastTransitionTime: isoSeconds(now) });
      }
    });
  }
  const phase = pod.status?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp) {
    store.mutate('pods', name, namespace, (p) => {
      const conditions: any[] = (p.status.conditions ??= []);
      const target = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastProbeTime: null, lastTransitionTime: isoSeconds(now) };
      const index = conditions.findIndex((c) => c.type === 'DisruptionTarget');
      if (index >= 0) conditions[index] = target;
      else conditions.push(target);
    });
  }
  store.deleteGracefully('pods', name, namespace);
  return kubeStatus(201, '', '');
}
