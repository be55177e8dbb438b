/**
 * The test kit's one wait: polls `check` until it returns something truthy, and returns that. For conditions nothing
 * announces — the simulator's world changes silently, a child process prints, BullMQ moves a job — where the fake
 * Slack's `waitFor` and the recording thread's `waitFor` (which wake on their own events) cannot help.
 *
 * A test waits for a condition, never for a fixed time (the machine is shared and busy): the timeout only bounds a
 * test that would otherwise hang, so it is generous, and its message says what was awaited. `what` may be a
 * function, read at the timeout, to say where things stood ("the job to finish (it is running at step …)").
 */
export interface UntilOptions {
  /** Default 30 s. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
}

/** What a truthy check returned (`cond && value` leaves `false` out). */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export async function until<T>(check: () => T | Promise<T>, what: string | (() => string), options: UntilOptions | number = {}): Promise<Truthy<T>> {
  const { timeoutMs = 30_000, intervalMs = 25 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
