import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { deepEqual } from '../objects/deep-equal.js';
import { computePdbStatus, DISRUPTED_POD_TIMEOUT_MS, pdbMatchesPod } from './pdb-status.js';
import { podControllerScale } from '../objects/pod-owners.js';
import { startReconcileLoop } from './reconcile-loop.js';

/**
 * The disruption controller: keeps every PodDisruptionBudget's status (currentHealthy, desiredHealthy,
 * expectedPods, disruptionsAllowed, DisruptionAllowed condition, observedGeneration) in step with its pods, and
 * expires disruptedPods entries after two minutes.
 */
export function startPdbController(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const run = () => {
    const pdbs = store.read('poddisruptionbudgets');
    if (pdbs.length === 0) return;
    const pods = store.read('pods');
    const now = clock.now();
    for (const pdb of pdbs) {
      const matching = pods.filter((p) => pdbMatchesPod(pdb, p));
      const status = computePdbStatus(pdb, matching, (p) => podControllerScale(store, p), now);
      if (!deepEqual(pdb.status, status)) {
        store.mutate('poddisruptionbudgets', pdb.metadata.name, pdb.metadata.namespace, (o) => {
          o.status = status;
        });
      }
      if (status.disruptedPods) loop.triggerAfter(DISRUPTED_POD_TIMEOUT_MS);
    }
  };
  const loop = startReconcileLoop(store, clock, ['poddisruptionbudgets', 'pods', 'deployments', 'statefulsets', 'replicasets'], run, 'disruption');
  return () => loop.stop();
}
