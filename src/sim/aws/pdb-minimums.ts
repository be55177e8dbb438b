import type { SimKubeStore } from '../kube/kube-store.js';
import { isPodReady, pdbMatchesPod } from '../kube/pdb-status.js';
import type { SimWorld } from './world-types.js';

/**
 * Records, per PodDisruptionBudget, the fewest healthy pods (Ready, not terminating) it covered at any moment once
 * it had first been satisfied: "carts' PDB was respected at every moment of the upgrade" is then one number a test
 * can read (GET /_sim/pdb-minimums), not a sample taken at the end. Evaluated on every pod change, so a dip that
 * lasts one event is seen.
 */
export function recordPdbMinimums(world: SimWorld, cluster: string, store: SimKubeStore): () => void {
  const armed = new Set<string>();
  const check = (namespace: string | undefined) => {
    const pdbs = store.list('poddisruptionbudgets', namespace);
    if (pdbs.length === 0) return;
    const pods = store.list('pods', namespace);
    for (const pdb of pdbs) {
      const key = `${cluster}/${pdb.metadata.namespace}/${pdb.metadata.name}`;
      const minAvailable = pdb.spec?.minAvailable;
      const desired = typeof minAvailable === 'number' ? minAvailable : Number(pdb.status?.desiredHealthy ?? 0);
      const healthy = pods.filter((pod) => pdbMatchesPod(pdb, pod) && !pod.metadata.deletionTimestamp && isPodReady(pod)).length;
      if (!armed.has(key)) {
        if (desired === 0 || healthy < desired) continue;
        armed.add(key);
      }
      const seen = world.pdbMinimums.get(key);
      if (!seen || healthy < seen.minHealthy) world.pdbMinimums.set(key, { cluster, minHealthy: healthy, desired });
    }
  };
  return store.subscribe((event) => {
    if (event.resource === 'pods' || event.resource === 'poddisruptionbudgets') check(event.object.metadata.namespace);
  });
}
