import type { GuardConfig } from '../../config/guards-config.js';

/**
 * Reading a guard's source (issue 29): a Prometheus query, Alertmanager's active alerts, CloudWatch alarms. The
 * adapters in src/guards/ implement it over HTTP and the AWS SDK; the engine decides what a reading means with the
 * pure evaluator (src/planning/guards/evaluate-guard.ts).
 */
export type GuardReading =
  /** A Prometheus instant vector (a scalar is one series with no labels); empty: missing data. */
  | { kind: 'series'; series: Array<{ labels: Record<string, string>; value: number }> }
  /** Alertmanager's active, unsilenced, uninhibited alerts matching all the guard's matchers. */
  | { kind: 'alerts'; alerts: Array<{ name: string; labels: Record<string, string>; startsAt?: string }> }
  /** The guard's CloudWatch alarms and their states; `missing` names asked for that do not exist. */
  | { kind: 'alarms'; alarms: Array<{ name: string; state: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA'; reason?: string; metric?: string }>; missing: string[] }
  /** The source could not be read: one sentence, "cannot read guard <name>: …". */
  | { kind: 'error'; reason: string };

export interface GuardReader {
  /** Never throws: a failure is a reading of kind 'error'. */
  read(guard: GuardConfig, cluster: { region: string; roleArn?: string }): Promise<GuardReading>;
  /**
   * The guard's value over [fromMs, toMs] at `stepMs`, for the breach card's sparkline (Prometheus query_range,
   * CloudWatch GetMetricData); undefined when the source has no series (Alertmanager) or it cannot be read.
   */
  history(guard: GuardConfig, cluster: { region: string; roleArn?: string }, fromMs: number, toMs: number, stepMs: number): Promise<Array<number | undefined> | undefined>;
}
