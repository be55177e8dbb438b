import type { BreachCondition, GuardConfig } from '../../config/guards-config.js';
import type { GuardReading } from '../../ports/guards/guard-port.js';

/**
 * What a guard's readings mean (issue 29), pure: each evaluation takes the guard's previous track (persisted in the
 * job's data, so any worker carries on) and a new reading at `now` on the bot's clock, and returns the new track.
 *
 * - Prometheus: breached once the condition has held for `for` on any one series (each series has its own "since",
 *   as Prometheus's alerting rules do); an empty result is missing data.
 * - Alertmanager: breached while any active, unsilenced alert matches (the rule's own `for` has already waited).
 * - CloudWatch: breached while any alarm is in ALARM; an alarm asked for by name that does not exist, or one in
 *   INSUFFICIENT_DATA with none in ALARM, is missing data.
 * - A source that cannot be read is unknown, with its sentence.
 * Unknown halts the upgrade unless `onMissingData: ignore` (guardHalts).
 */
export type GuardStatus = 'healthy' | 'breached' | 'unknown';

export interface GuardTrack {
  status: GuardStatus;
  /** When the guard was last evaluated (clock ms); the next evaluation is due an interval later. */
  at: number;
  /** Since when the guard has had this status (clock ms). */
  since: number;
  /** Prometheus: per series (its labels, as text), since when it has met the breach condition. */
  holding?: Record<string, number>;
  /** The value that decides: the worst series' value, the number of alerts, or the number of alarms in ALARM. */
  value?: number;
  /** What the value is of: a series' labels, alert names, alarm names. */
  subject?: string;
  /** Why the guard is unknown (a "cannot read guard …" sentence or "the query returned no series"). */
  reason?: string;
  /** When the guard was last breached or unknown-halting, for the card's "since" and recovery. */
  troubleSince?: number;
}

export function evaluateGuard(guard: GuardConfig, previous: GuardTrack | undefined, reading: GuardReading, now: number): GuardTrack {
  const next = verdictOf(guard, previous, reading, now);
  const since = previous && previous.status === next.status ? previous.since : now;
  const halting = guardHalts(guard, next.status);
  const troubleSince = halting ? (previous && guardHalts(guard, previous.status) ? (previous.troubleSince ?? since) : since) : undefined;
  return { ...next, at: now, since, ...(troubleSince !== undefined ? { troubleSince } : {}) };
}

/** Whether a guard in this status stops the upgrade: breached always; unknown unless onMissingData: ignore. */
export function guardHalts(guard: GuardConfig, status: GuardStatus): boolean {
  return status === 'breached' || (status === 'unknown' && guard.onMissingData === 'halt');
}

/** Whether the guard is due for another evaluation at `now`. */
export function guardDue(guard: GuardConfig, track: GuardTrack | undefined, now: number): boolean {
  return track === undefined || now - track.at >= guard.intervalMs;
}

/** Whether an automatically paused job may resume: autoResume, and healthy (or ignorable) for the guard's `for`. */
export function guardRecovered(guard: GuardConfig, track: GuardTrack | undefined, now: number): boolean {
  if (!track || guardHalts(guard, track.status)) return false;
  return now - track.since >= guard.forMs;
}

type Verdict = Omit<GuardTrack, 'at' | 'since' | 'troubleSince'>;

function verdictOf(guard: GuardConfig, previous: GuardTrack | undefined, reading: GuardReading, now: number): Verdict {
  if (reading.kind === 'error') return { status: 'unknown', reason: reading.reason };
  if (reading.kind === 'series') {
    if (guard.source.kind !== 'prometheus') return { status: 'unknown', reason: `cannot read guard ${guard.name}: got a series for a ${guard.source.kind} guard` };
    return seriesVerdict(guard.source.breachWhen, guard.forMs, previous?.holding ?? {}, reading.series, now);
  }
  if (reading.kind === 'alerts') {
    if (reading.alerts.length === 0) return { status: 'healthy', value: 0 };
    return { status: 'breached', value: reading.alerts.length, subject: [...new Set(reading.alerts.map((alert) => alert.name))].join(', ') };
  }
  const firing = reading.alarms.filter((alarm) => alarm.state === 'ALARM');
  if (firing.length > 0) return { status: 'breached', value: firing.length, subject: firing.map((alarm) => alarm.name).join(', ') };
  if (reading.missing.length > 0) return { status: 'unknown', reason: `CloudWatch has no alarm named ${reading.missing.join(', ')}` };
  if (reading.alarms.length === 0) return { status: 'unknown', reason: 'no CloudWatch alarm matches the guard' };
  const insufficient = reading.alarms.filter((alarm) => alarm.state === 'INSUFFICIENT_DATA');
  if (insufficient.length > 0) return { status: 'unknown', reason: `alarm ${insufficient.map((alarm) => alarm.name).join(', ')} has insufficient data` };
  return { status: 'healthy', value: 0 };
}

function seriesVerdict(condition: BreachCondition, forMs: number, holdingBefore: Record<string, number>, series: Array<{ labels: Record<string, string>; value: number }>, now: number): Verdict {
  if (series.length === 0) return { status: 'unknown', reason: 'the query returned no series (missing data)' };
  const holding: Record<string, number> = {};
  for (const one of series) {
    if (!meets(condition, one.value)) continue;
    const key = labelsText(one.labels);
    holding[key] = holdingBefore[key] ?? now;
  }
  // The series that decides: the one holding longest, else the one nearest to breaching.
  const held = Object.entries(holding).sort((a, b) => a[1] - b[1])[0];
  const worst = held
    ? series.find((one) => labelsText(one.labels) === held[0])!
    : [...series].sort((a, b) => (condition.op.startsWith('<') ? a.value - b.value : b.value - a.value))[0];
  const base = { value: worst.value, subject: labelsText(worst.labels), ...(Object.keys(holding).length > 0 ? { holding } : {}) };
  return { status: held && now - held[1] >= forMs ? 'breached' : 'healthy', ...base };
}

export function meets(condition: BreachCondition, value: number): boolean {
  if (Number.isNaN(value)) return false;
  switch (condition.op) {
    case '<': return value < condition.threshold;
    case '<=': return value <= condition.threshold;
    case '>': return value > condition.threshold;
    case '>=': return value >= condition.threshold;
  }
}

/** `{deployment="checkout", namespace="shop"}`, or "" for a scalar or a series without labels. */
export function labelsText(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).filter(([name]) => name !== '__name__').sort(([a], [b]) => a.localeCompare(b));
  return pairs.length === 0 ? '' : `{${pairs.map(([name, value]) => `${name}="${value}"`).join(', ')}}`;
}
