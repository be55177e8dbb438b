import type { SharedReads } from '../ports/shared-reads.js';

/** A cluster as keys of shared reads name it: the same name in another Region or read with another role is another read. */
export function readKeyOf(cluster: { name: string; region: string; roleArn?: string }): string {
  return `${cluster.name}@${cluster.region}@${cluster.roleArn ?? ''}`;
}

/**
 * One read at a time per key, and the callers who ask while it runs share the read that follows it. A caller never
 * gets an answer read before it asked: a read already under way may have passed the state the caller is asking about
 * (an update started a second ago), so joining it would answer with something older than the question. Each key has at
 * most one read running and one waiting; a burst of N equal commands costs two reads at first, then one per read's
 * time, however large N is. Nothing is kept after a read settles (no cache): the next caller reads afresh.
 *
 * The wait is the price: a caller who arrives just after a read started waits for it and then for its own, at most
 * twice the read's time (each read has its own deadline: 20 s a cluster for status, 60 s for a plan).
 */
export function createSharedReads(): SharedReads {
  const keys = new Map<string, { waiting?: { promise: Promise<unknown>; start(): void } }>();

  const runFrom = (key: string, running: Promise<unknown>) => {
    const settled = () => {
      const slot = keys.get(key)!;
      const waiting = slot.waiting;
      if (!waiting) {
        keys.delete(key);
        return;
      }
      slot.waiting = undefined;
      waiting.start();
      void waiting.promise.then(settled, settled);
    };
    void running.then(settled, settled);
  };

  return {
    share<T>(key: string, read: () => Promise<T>): Promise<T> {
      const slot = keys.get(key);
      if (!slot) {
        // Nothing under way: this caller's read starts now, after it asked.
        keys.set(key, {});
        const running = Promise.resolve().then(read);
        runFrom(key, running);
        return running;
      }
      if (!slot.waiting) {
        let start!: () => void;
        const promise = new Promise<void>((resolve) => (start = resolve)).then(read);
        slot.waiting = { promise, start };
      }
      return slot.waiting.promise as Promise<T>;
    },
  };
}
