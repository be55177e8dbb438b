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
  /**
   * Real-time clocks only: run at a new speed from now on (POST /_sim/speed, the playground's speed control).
   * Simulated time stays continuous and pending timers keep their simulated due time.
   */
  setSpeed?(speed: number): void;
  /**
   * Real-time clocks only: move simulated time forward at once (days pass, e.g. past a waiver's expiry). Timers
   * already set keep their real deadlines, so they fire late in simulated terms, as after a long pause.
   */
  jump?(simMs: number): void;
  /** Real-time clocks that watch their event loop (`loopGapMs`): stop watching. */
  stop?(): void;
}

export interface SimClockOptions {
  /**
   * Real time in which this process's event loop did not get to run, beyond this many milliseconds, does not count
   * as simulated time. A twin inside a busy worker (a rehearsal at speed 600 beside other jobs, on a loaded machine)
   * would otherwise leap ahead: one second the loop is held up is ten simulated minutes in which the world moved
   * and the engine driving it did not, and a drain or a drift looks stalled that only waited for the CPU. Unset: all
   * real time counts.
   */
  loopGapMs?: number;
}

function checkSpeed(speed: number): void {
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error(`--speed must be a positive number, got ${speed}`);
}

export function createSimClock(initialSpeed = 1, start = Date.now(), options: SimClockOptions = {}): SimClock {
  checkSpeed(initialSpeed);
  let speed = initialSpeed;
  // Simulated time is simStart + (real time since realStart) × speed; a speed change moves both anchors to now.
  let simStart = start;
  let realStart = Date.now();
  // The loop's heartbeat: each beat (and each reading) that comes later than loopGapMs after the one before moves
  // realStart on by the excess, so that stretch is not counted. Only real time no reading has seen yet is dropped,
  // so simulated time never runs backwards.
  const gapMs = options.loopGapMs;
  let lastBeat = realStart;
  const skipGap = (real: number) => {
    if (gapMs !== undefined && real - lastBeat > gapMs) realStart += real - lastBeat - gapMs;
    lastBeat = real;
  };
  const heartbeat = gapMs === undefined ? undefined : setInterval(() => skipGap(Date.now()), Math.max(1, Math.floor(gapMs / 2)));
  heartbeat?.unref();
  const now = () => {
    const real = Date.now();
    skipGap(real);
    return simStart + (real - realStart) * speed;
  };
  interface Timer { due: number; fn: () => void; timer?: ReturnType<typeof setTimeout>; keepAlive: boolean }
  const pending = new Set<Timer>();

  function arm(entry: Timer): void {
    entry.timer = setTimeout(() => {
      // setTimeout may fire a millisecond early by Date.now(), which is `speed` simulated milliseconds: wait the rest.
      if (now() < entry.due) return arm(entry);
      pending.delete(entry);
      entry.fn();
    }, Math.max(0, (entry.due - now()) / speed));
    if (!entry.keepAlive) entry.timer.unref?.();
  }

  function schedule(simMs: number, fn: () => void, keepAlive: boolean): () => void {
    const entry: Timer = { due: now() + Math.max(0, simMs), fn, keepAlive };
    pending.add(entry);
    arm(entry);
    return () => {
      clearTimeout(entry.timer);
      pending.delete(entry);
    };
  }

  return {
    get speed() {
      return speed;
    },
    now,
    jump(simMs) {
      if (!(simMs >= 0)) throw new Error(`jump needs a non-negative number of simulated milliseconds, got ${simMs}`);
      simStart += simMs;
    },
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
        const onAbort = () => {
          cancel();
          reject(signal!.reason ?? new Error('aborted'));
        };
        // A sleeping caller keeps the process alive, as a plain setTimeout would; controller timers do not. The
        // listener goes with the timer: a bot running on this clock sleeps often on long-lived signals.
        const cancel = schedule(ms, () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, true);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    after: (simMs, fn) => schedule(simMs, fn, false),
    stop() {
      if (heartbeat) clearInterval(heartbeat);
    },
    setSpeed(next: number) {
      checkSpeed(next);
      simStart = now();
      realStart = lastBeat;
      speed = next;
      for (const entry of pending) {
        clearTimeout(entry.timer);
        arm(entry);
      }
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
