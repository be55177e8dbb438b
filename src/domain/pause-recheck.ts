/**
 * How long a paused job stays parked before it reads its controls again. Each park also re-checks on wake-up
 * (Resume or Abort end the wait early), so this only bounds how long a missed wake-up can go unnoticed, and keeps a
 * long pause from costing a Redis round trip every few seconds.
 */

export const PAUSE_RECHECK_MS = 10 * 60_000;
