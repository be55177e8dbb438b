import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import { isPodReady, pdbMatchesPod } from '../kube/controllers/pdb-status.js';
import type { SimWorld } from './world-types.js';

/**
 * Records, per PodDisruptionBudget, the fewest healthy pods (Ready, not terminating) it covered at any moment once
 * it had first been satisfied: "carts' PDB was respected at every moment of the upgrade" is then one number a test
 * can read (GET /_sim/pdb-minimums), not a sample taken at the end. Evaluated on every pod change, so a dip that
 * lasts one event is seen. Kept incrementally (the healthy pods each PDB covers, updated by the pod that changed),
 * so a cluster of thousands of pods costs a few set operations per change, not a scan of every pod.
 */
export function recordPdbMinimums(world: SimWorld, cluster: string, store: SimKubeStore): () => void {
  const armed = new Set<string>();
  /** key → the PDB as last seen and the names of the healthy pods it covers. */
  const tracked = new Map<string, { pdb: KubeObject; healthy: Set<string> }>();
  const keyOf = (pdb: KubeObject) => `${cluster}/${pdb.metadata.namespace}/${pdb.metadata.name}`;
  const healthyFor = (pdb: KubeObject, pod: KubeObject) => pdbMatchesPod(pdb, pod) && !pod.metadata.deletionTimestamp && isPodReady(pod);

  const evaluate = (key: string) => {
    const entry = tracked.get(key);
    if (!entry) return;
    const { pdb, healthy } = entry;
    const minAvailable = pdb.spec?.minAvailable;
    const desired = typeof minAvailable === 'number' ? minAvailable : Number(pdb.status?.desiredHealthy ?? 0);
    if (!armed.has(key)) {
      if (desired === 0 || healthy.size < desired) return;
      armed.add(key);
    }
    const seen = world.pdbMinimums.get(key);
    if (!seen || healthy.size < seen.minHealthy) world.pdbMinimums.set(key, { cluster, minHealthy: healthy.size, desired });
  };
  const track = (pdb: KubeObject) => {
    const healthy = new Set(store.list('pods', pdb.metadata.namespace).filter((pod) => healthyFor(pdb, pod)).map((pod) => pod.metadata.name));
    tracked.set(keyOf(pdb), { pdb, healthy });
  };
  for (const pdb of store.list('poddisruptionbudgets')) track(pdb);

  return store.subscribe((event) => {
    if (event.resource === 'poddisruptionbudgets') {
      const key = keyOf(event.object);
      if (event.type === 'DELETED') {
        tracked.delete(key);
        return;
      }
      const entry = tracked.get(key);
      // A changed selector (or a new PDB) needs a fresh count; a status update keeps the pods it covers.
      if (!entry || JSON.stringify(entry.pdb.spec?.selector) !== JSON.stringify(event.object.spec?.selector)) track(event.object);
      else entry.pdb = event.object;
      evaluate(key);
      return;
    }
    if (event.resource !== 'pods') return;
    const pod = event.object;
    for (const [key, entry] of tracked) {
      if (entry.pdb.metadata.namespace !== pod.metadata.namespace) continue;
      if (event.type !== 'DELETED' && healthyFor(entry.pdb, pod)) entry.healthy.add(pod.metadata.name);
      else entry.healthy.delete(pod.metadata.name);
      evaluate(key);
    }
  });
}
