import type { KubePort } from '../../src/ports/kube-port.js';
import { startWatchCaches, type WatchCaches, type WatchHooks, type WatchSpec } from './watch-cache.js';

/**
 * Watch caches kept running between the windows of one step on this worker, so a long rollout that parks its job
 * every few minutes (follow-drift.ts) lists each resource once and then only watches — what an informer in a
 * controller does — instead of listing everything again at every window. A cache put on the shelf stops by itself
 * after `lingerMs` when no window takes it back (the job moved to another worker, or stays paused); a window on
 * another worker simply starts fresh caches, whose first list re-syncs it. The shelf is only an economy: nothing
 * read from it is trusted beyond what the watch itself keeps current.
 */
export interface WatchCacheShelf {
  /** The caches kept under `key` (handed to this window's callbacks, their current sets replayed), or fresh ones. */
  open<K extends string>(key: string, kube: KubePort, specs: Record<K, WatchSpec>, hooks: WatchHooks): Promise<{ caches: WatchCaches<K>; resumed: boolean }>;
  /** Keeps the caches under `key` for the next window, for at most `lingerMs`. */
  shelve<K extends string>(key: string, caches: WatchCaches<K>, lingerMs: number): void;
}

export function createWatchCacheShelf(): WatchCacheShelf {
  const kept = new Map<string, { caches: WatchCaches<string>; timer: NodeJS.Timeout }>();
  const specsOf = new WeakMap<object, string>();
  // The same key with other resources or selectors (a newer build's window) must not get the old caches.
  const describe = (specs: Record<string, WatchSpec>) => JSON.stringify(Object.entries(specs).map(([name, spec]) => [name, spec.resource, spec.options ?? {}]));
  return {
    async open(key, kube, specs, hooks) {
      const shelved = kept.get(key);
      if (shelved) {
        kept.delete(key);
        clearTimeout(shelved.timer);
        if (specsOf.get(shelved.caches) === describe(specs)) {
          const caches = shelved.caches as WatchCaches<keyof typeof specs & string>;
          for (const name of Object.keys(specs) as Array<keyof typeof specs & string>) caches[name].rebind(specs[name].onObject, hooks);
          return { caches, resumed: true };
        }
        shelved.caches.stopAll();
      }
      const caches = await startWatchCaches(kube, specs, hooks);
      specsOf.set(caches, describe(specs));
      return { caches, resumed: false };
    },
    shelve(key, caches, lingerMs) {
      const previous = kept.get(key);
      if (previous && previous.caches !== caches) previous.caches.stopAll();
      if (previous) clearTimeout(previous.timer);
      // Wall time on purpose: this bounds how long idle sockets stay open, whatever clock the job runs on.
      const timer = setTimeout(() => {
        if (kept.get(key)?.caches !== caches) return;
        kept.delete(key);
        caches.stopAll();
      }, lingerMs);
      timer.unref();
      kept.set(key, { caches: caches as WatchCaches<string>, timer });
    },
  };
}
