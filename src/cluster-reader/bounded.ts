/**
 * Bounded concurrency and deadlines for reads that fan out: `status --all` over hundreds of clusters, and the
 * describe-each calls within one cluster. Without a bound a fleet would open hundreds of connections and trip
 * AWS throttling; without a deadline one unreachable API server would hold the whole answer.
 */

import type { Clock } from '../ports/clock.js';

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const run = createLimiter(Math.max(1, limit));
  return Promise.all(items.map((item, index) => run(() => fn(item, index))));
}

/**
 * Maps with at most `perKey` calls in flight for each key and `overall` in all; results keep the input order, and
 * items of one key start in input order. A call waits for its key's slot first, then for one of the overall slots.
 */
export async function mapBoundedBy<T, R>(
  items: readonly T[],
  keyOf: (item: T) => string,
  limits: { perKey: number; overall: number },
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const overall = createLimiter(Math.max(1, limits.overall));
  const byKey = new Map<string, Limiter>();
  const limiterOf = (key: string) => {
    let limiter = byKey.get(key);
    if (!limiter) byKey.set(key, (limiter = createLimiter(Math.max(1, limits.perKey))));
    return limiter;
  };
  return Promise.all(items.map((item, index) => limiterOf(keyOf(item))(() => overall(() => fn(item, index)))));
}

export class DeadlineExceeded extends Error {
  readonly code = 'deadline_exceeded';
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${Math.round(ms / 1000)} s`);
    this.name = 'DeadlineExceeded';
  }
}

/** Why a deadline's timer is cancelled: made once, since abort() without a reason builds a DOMException (with its stack) per call — a cost per cluster of `status --all`. */
const SETTLED = Object.freeze({ name: 'Settled', message: 'the work settled before its deadline' });

/** Resolves like `work`, or rejects with DeadlineExceeded after `ms` (the work itself is left to finish on its own). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string, clock: Clock): Promise<T> {
  const controller = new AbortController();
  // If the deadline wins, a later failure of `work` must not surface as an unhandled rejection.
  work.catch(() => {});
  const timer = clock.sleep(ms, controller.signal).then(
    () => Promise.reject(new DeadlineExceeded(what, ms)),
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([work, timer]);
  } finally {
    controller.abort(SETTLED);
  }
}
