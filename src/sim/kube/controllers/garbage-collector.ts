import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { RESOURCES } from '../objects/resource-registry.js';

/**
 * The garbage collector's background cascade: when an owner is deleted, objects whose every owner is gone are
 * deleted too (deployment → replicasets → pods; statefulset/daemonset → pods), pods gracefully.
 */
export function startGarbageCollector(store: SimKubeStoreImpl, clock: SimClock): () => void {
  const gone = new Set<string>();
  let scheduled: (() => void) | undefined;
  const collect = () => {
    scheduled = undefined;
    const uids = new Set(gone);
    gone.clear();
    for (const type of RESOURCES) {
      // Nothing owns events or namespaces; skipping them keeps a collection pass cheap.
      if (type.plural === 'events' || type.plural === 'namespaces') continue;
      // Read uncopied (only names and owner references are looked at): a copy of every object per deletion was a
      // large share of the simulator's CPU at 500 nodes, where each drained node deletes its pods.
      for (const object of store.read(type.plural)) {
        const refs = object.metadata.ownerReferences ?? [];
        if (!refs.some((r) => r.uid && uids.has(r.uid))) continue;
        const alive = refs.some((r) => !(r.uid && uids.has(r.uid)) && ownerExists(store, r, object.metadata.namespace));
        if (alive) continue;
        if (type.plural === 'pods') store.deleteGracefully('pods', object.metadata.name, object.metadata.namespace);
        else store.delete(type.plural, object.metadata.name, object.metadata.namespace);
      }
    }
  };
  const unsubscribe = store.subscribeRecords((record) => {
    if (record.type !== 'DELETED' || !record.object.metadata.uid) return;
    gone.add(record.object.metadata.uid);
    scheduled ??= clock.after(0, collect);
  });
  return () => {
    unsubscribe();
    scheduled?.();
  };
}

function ownerExists(store: SimKubeStoreImpl, ref: { kind: string; name: string; uid?: string }, namespace?: string): boolean {
  const type = RESOURCES.find((t) => t.kind === ref.kind);
  if (!type) return true;
  const owner = store.readOne(type.plural, ref.name, type.namespaced ? namespace : undefined);
  return Boolean(owner && (!ref.uid || owner.metadata.uid === ref.uid));
}
