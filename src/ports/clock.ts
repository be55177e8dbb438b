/**
 * Time comes in through this interface so long waits (a 10-minute control-plane update, a 15-minute drain)
 * are testable in milliseconds, and the simulator can run faster than real time.
 */
export interface Clock {
  now(): number; // epoch milliseconds
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Clock milliseconds per real millisecond (the simulator's --speed); absent means real time. Only what must meet
   * wall-time machinery (BullMQ's job schedulers, jobs/worker/clock-repeat-strategy.ts, a job parked as delayed) reads it.
   */
  readonly speed?: number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * The wall milliseconds in which `clock` shows `clockMs` pass: BullMQ's delays are wall instants (Date.now() + ms), so
 * a job parked for 8 s of the bot's clock on the simulator at speed 600 comes back after 13 real ms, not 8 s.
 */
export function wallMsOf(clock: Clock, clockMs: number): number {
  return clockMs / speedOf(clock);
}

/** The clock's speed against wall time: its `speed` when that is a positive finite number, else 1 (real time). */
export function speedOf(clock: Clock): number {
  const speed = clock.speed;
  return speed !== undefined && Number.isFinite(speed) && speed > 0 ? speed : 1;
}
