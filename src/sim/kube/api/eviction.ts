import type { KubeObject } from '../../../kube-types/kube-object.js';
import { isPodReady } from '../controllers/pdb-status.js';
import { kubeStatus, type KubeStatus } from './kube-status.js';

/**
 * What the eviction subresource does with one pod, decided from the pod and the PDBs matching it, as
 * pkg/registry/core/pod/storage/eviction.go does: terminal, pending and terminating pods ignore PDBs; more than
 * one PDB is a 500; a PDB the controller has not processed yet or with no disruptions left is a 429 with a
 * DisruptionBudget cause; unready pods may go while the budget is otherwise met.
 */
export type EvictionDecision =
  | { action: 'delete' }
  | { action: 'delete-and-decrement'; pdb: KubeObject }
  | { action: 'refuse'; status: KubeStatus };

export const PDB_VIOLATION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(cause: string, retryAfterSeconds?: number): KubeStatus {
  return kubeStatus(429, 'TooManyRequests', PDB_VIOLATION_MESSAGE, {
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    causes: [{ reason: 'DisruptionBudget', message: cause }],
  });
}

export function decideEviction(pod: KubeObject, pdbs: KubeObject[]): EvictionDecision {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !phase || pod.metadata.deletionTimestamp) {
    return { action: 'delete' };
  }
  if (pdbs.length > 1) {
    const text = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';
    return {
      action: 'refuse',
      status: kubeStatus(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] }),
    };
  }
  if (pdbs.length === 0) return { action: 'delete' };
  const pdb = pdbs[0];
  const status = pdb.status ?? {};
  const ready = isPodReady(pod);
  if (!ready && pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { action: 'delete' };
  if (!ready && (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0) {
    return { action: 'delete' };
  }
  if ((status.observedGeneration ?? 0) < ((pdb.metadata.generation as number) ?? 1)) {
    return { action: 'refuse', status: tooManyRequests(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`, 10) };
  }
  if ((status.disruptionsAllowed ?? 0) < 0) {
    return {
      action: 'refuse',
      status: kubeStatus(403, 'Forbidden', `poddisruptionbudget.policy "${pdb.metadata.name}" is forbidden: pdb disruptions allowed is negative`, {
        name: pdb.metadata.name,
        group: 'policy',
        kind: 'poddisruptionbudget',
      }),
    };
  }
  if ((status.disruptionsAllowed ?? 0) === 0) {
    return {
      action: 'refuse',
      status: tooManyRequests(
        `The disruption budget ${pdb.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
      ),
    };
  }
  return { action: 'delete-and-decrement', pdb };
}
