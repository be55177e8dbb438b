import type { KubeObject, KubePort, KubeResource, KubeWatchHandle, ListOptions, WatchEventType } from '../../src/ports/kube-port.js';

/**
 * An informer in miniature: the current set of one resource, kept by KubePort.watch (list, then watch, re-list on
 * 410), with a callback on every change. The Karpenter and Fargate steps read their progress from these instead of
 * polling, and a step resumed after a parked wait starts fresh caches whose first list re-syncs it.
 */
export interface WatchCache {
  items(): KubeObject[];
  get(name: string, namespace?: string): KubeObject | undefined;
  stop(): void;
  /**
   * Hands the running cache to a new owner (the next window of the same step, watch-cache-shelf.ts): its callbacks
   * replace the old ones, and the current set is replayed to it as SYNCED, as a fresh list would have been.
   */
  rebind(onObject: WatchSpec['onObject'], hooks: WatchHooks): void;
}

export interface WatchHooks {
  onChange(): void;
  onError(error: Error): void;
}

export interface WatchSpec {
  resource: KubeResource;
  options?: ListOptions;
  /** Called for each ADDED / MODIFIED / DELETED object and, after each (re)list, for every listed object. */
  onObject?(type: WatchEventType | 'SYNCED', object: KubeObject): void;
}

const keyOf = (name: string, namespace?: string) => `${namespace ?? ''}/${name}`;

export async function startWatchCache(kube: KubePort, spec: WatchSpec, hooks: WatchHooks): Promise<WatchCache> {
  const objects = new Map<string, KubeObject>();
  let owner = { onObject: spec.onObject, hooks };
  const handle: KubeWatchHandle = await kube.watch(spec.resource, spec.options ?? {}, {
    onSynced(items) {
      objects.clear();
      for (const item of items) {
        objects.set(keyOf(item.metadata.name, item.metadata.namespace), item);
        owner.onObject?.('SYNCED', item);
      }
      owner.hooks.onChange();
    },
    onEvent(type, object) {
      if (type === 'BOOKMARK') return;
      const key = keyOf(object.metadata.name, object.metadata.namespace);
      if (type === 'DELETED') objects.delete(key);
      else objects.set(key, object);
      owner.onObject?.(type, object);
      owner.hooks.onChange();
    },
    onError: (error) => owner.hooks.onError(error),
  });
  return {
    items: () => [...objects.values()],
    get: (name, namespace) => objects.get(keyOf(name, namespace)),
    stop: () => handle.stop(),
    rebind(onObject, nextHooks) {
      owner = { onObject, hooks: nextHooks };
      for (const item of objects.values()) onObject?.('SYNCED', item);
      nextHooks.onChange();
    },
  };
}

export type WatchCaches<K extends string> = Record<K, WatchCache> & { stopAll(): void };

/** Starts several caches; if one cannot start, the ones already running are stopped before the error goes up. */
export async function startWatchCaches<K extends string>(
  kube: KubePort,
  specs: Record<K, WatchSpec>,
  hooks: WatchHooks,
): Promise<WatchCaches<K>> {
  const started: Partial<Record<K, WatchCache>> = {};
  const stopAll = () => {
    for (const cache of Object.values(started) as WatchCache[]) cache.stop();
  };
  try {
    for (const name of Object.keys(specs) as K[]) started[name] = await startWatchCache(kube, specs[name], hooks);
  } catch (error) {
    stopAll();
    throw error;
  }
  return { ...(started as Record<K, WatchCache>), stopAll };
}

/**
 * Waits until `notify()` is called or `ms` pass (on the step's clock, which rejects when the worker shuts down). A
 * notify that came while nobody waited makes the next wait return at once, so no change is slept through.
 */
export function createChangeSignal(sleep: (ms: number) => Promise<void>) {
  let pending = true;
  let wake: (() => void) | undefined;
  return {
    notify() {
      pending = true;
      wake?.();
    },
    async wait(ms: number): Promise<void> {
      if (pending) {
        pending = false;
        return;
      }
      const timer = sleep(ms);
      // The race below may settle on a change first; a later rejection of the sleep must not go unhandled.
      timer.catch(() => undefined);
      try {
        await Promise.race([timer, new Promise<void>((resolve) => (wake = resolve))]);
      } finally {
        wake = undefined;
        pending = false;
      }
    },
  };
}
