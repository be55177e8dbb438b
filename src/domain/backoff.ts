/**
 * Exponential backoff with a ceiling, the one formula behind every retry of ours (the engine's transient AWS and
 * Kubernetes failures, the thread outbox's Slack failures): base, 2×base, 4×base… capped at max.
 */

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/** The wait before retry number `retry` (0 = the first retry). */
export function backoffMs(retry: number, policy: BackoffPolicy): number {
  // The exponent is capped so a long outage cannot overflow to Infinity before the ceiling applies.
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(0, retry), 30));
}

/**
 * Which retry in a row a transient failure is: failures count in a row, not over a step's whole life. A run that got
 * calls through (`succeededCalls` > 0) and kept going at least `headwayMs` before failing made headway, so its failure
 * is the first again; a run that got nothing through (an outage) adds to the count until the caller gives up.
 */
export function transientAttempt(previous: number, run: { succeededCalls: number; workedMs: number }, headwayMs: number): number {
  const headway = run.succeededCalls > 0 && run.workedMs >= headwayMs;
  return headway ? 1 : previous + 1;
}
