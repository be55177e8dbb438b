import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';

/**
 * A level-triggered controller loop: changes to the resources it watches schedule one pass on the sim clock
 * (coalesced, so a burst of changes costs one pass). Passes write only what differs, so loops settle.
 */
export interface ReconcileLoop {
  trigger(): void;
  /** Runs a pass after `simMs` (for timed work: pod start-up, expiring disrupted pods). */
  triggerAfter(simMs: number): void;
  stop(): void;
}

export function startReconcileLoop(
  store: SimKubeStoreImpl,
  clock: SimClock,
  resources: string[],
  run: () => void,
  name: string,
): ReconcileLoop {
  let scheduled: (() => void) | undefined;
  let stopped = false;
  const timers = new Set<() => void>();
  const pass = () => {
    scheduled = undefined;
    if (stopped) return;
    try {
      run();
    } catch (error) {
      console.error(`sim ${name} controller (cluster ${store.clusterName}): a reconcile pass failed`, error);
    }
  };
  const loop: ReconcileLoop = {
    trigger() {
      if (!scheduled && !stopped) scheduled = clock.after(0, pass);
    },
    triggerAfter(simMs) {
      if (stopped) return;
      const cancel = clock.after(simMs, () => {
        timers.delete(cancel);
        loop.trigger();
      });
      timers.add(cancel);
    },
    stop() {
      stopped = true;
      scheduled?.();
      for (const cancel of timers) cancel();
      unsubscribe();
    },
  };
  const watched = new Set(resources);
  const unsubscribe = store.subscribeRecords((record) => {
    if (watched.has(record.resource)) loop.trigger();
  });
  loop.trigger();
  return loop;
}
