/**
 * The simulator's clock: simulated time runs `speed` times faster than real time, so a 10-minute control-plane
 * update takes 10 s at --speed 60. Controllers schedule work with `after(simMs, fn)`; tests may use a manual
 * clock and `advance()` to run controllers on virtual time with no real waiting.
 */
export interface SimClock {
  /** Simulated epoch milliseconds. Together with sleep() this is the product's Clock port, by shape. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  readonly speed: number;
  /** Runs fn once `simMs` of simulated time have passed; returns a cancel function. */
  after(simMs: number, fn: () => void): () => void;
  /** Manual clocks only: move simulated time forward, firing due timers in order. */
  advance?(simMs: number): Promise<void>;
}

export function createSimClock(speed = 1, start = Date.now()): SimClock {
  if (!(speed > 0)) throw new Error(`--speed must be a positive number, got ${speed}`);
  const realStart = Date.now();
  const now = () => start + (Date.now() - realStart) * speed;
  return {
    speed,
    now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms / speed);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason ?? new Error('aborted'));
        }, { once: true });
      }),
    after(simMs, fn) {
      const timer = setTimeout(fn, Math.max(0, simMs / speed));
      timer.unref?.();
      return () => clearTimeout(timer);
    },
  };
}

/** A clock that only moves when told to: for unit tests of controllers. */
export function createManualClock(start = Date.UTC(2026, 0, 1)): SimClock & { advance(simMs: number): Promise<void> } {
  let current = start;
  let seq = 0;
  const timers: Array<{ due: number; seq: number; fn: () => void }> = [];
  const clock = {
    speed: Infinity,
    now: () => current,
    sleep(ms: number) {
      return new Promise<void>((resolve) => {
        clock.after(ms, resolve);
      });
    },
    after(simMs: number, fn: () => void) {
      const timer = { due: current + Math.max(0, simMs), seq: seq++, fn };
      timers.push(timer);
      return () => {
        const index = timers.indexOf(timer);
        if (index >= 0) timers.splice(index, 1);
      };
    },
    async advance(simMs: number) {
      const target = current + simMs;
      for (;;) {
        timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
        const next = timers[0];
        if (!next || next.due > target) break;
        timers.shift();
        current = next.due;
        next.fn();
        // Let promise continuations scheduled by the timer run before the next one fires.
        await new Promise((resolve) => setImmediate(resolve));
      }
      current = target;
    },
  };
  return clock;
}
