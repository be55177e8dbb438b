/**
 * The simulated account's CloudWatch metric alarms (one map per world, keyed by region and name) and what the
 * simulator remembers of each alarm's metric: nothing publishes metric data to it, so the value GetMetricData answers
 * for an alarm's metric is synthesized from the alarm's state history — one datapoint per state change, on the
 * breaching side of the threshold while in ALARM, on the other side while OK, none while INSUFFICIENT_DATA (unless
 * SetAlarmState's StateReasonData carries `recentDatapoints`, whose last value is taken as is).
 */
export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface AlarmDimension {
  Name: string;
  Value: string;
}

export interface SimAlarm {
  region: string;
  name: string;
  arn: string;
  /** The PutMetricAlarm input as given (the alarm's configuration, echoed by DescribeAlarms). */
  config: Record<string, unknown>;
  configurationUpdatedAt: number;
  state: AlarmState;
  stateReason: string;
  stateReasonData?: string;
  stateUpdatedAt: number;
  /** Every state change, oldest first, with the metric value recorded for it (undefined: no data). */
  history: Array<{ at: number; state: AlarmState; value?: number }>;
}

export type AlarmStore = Map<string, SimAlarm>;

export const alarmKey = (region: string, name: string) => `${region}\u0000${name}`;

export function alarmsIn(store: AlarmStore, region: string): SimAlarm[] {
  return [...store.values()].filter((alarm) => alarm.region === region).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The value a state stands for, against the alarm's threshold and comparison. */
export function valueForState(config: Record<string, unknown>, state: AlarmState, reasonData?: string): number | undefined {
  if (state === 'INSUFFICIENT_DATA') return undefined;
  const recent = recentDatapoint(reasonData);
  if (recent !== undefined) return recent;
  const threshold = typeof config.Threshold === 'number' ? config.Threshold : undefined;
  if (threshold === undefined) return state === 'ALARM' ? 1 : 0;
  const step = Math.max(1, Math.abs(threshold) * 0.1);
  const above = /^Greater/.test(String(config.ComparisonOperator ?? 'GreaterThanThreshold'));
  const breaching = above ? threshold + step : threshold - step;
  const healthy = above ? threshold - step : threshold + step;
  return state === 'ALARM' ? breaching : healthy;
}

function recentDatapoint(reasonData: string | undefined): number | undefined {
  if (!reasonData) return undefined;
  try {
    const points = (JSON.parse(reasonData) as { recentDatapoints?: unknown }).recentDatapoints;
    const last = Array.isArray(points) ? points[points.length - 1] : undefined;
    return typeof last === 'number' && Number.isFinite(last) ? last : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the alarm watches this metric: same namespace and name, the same set of dimensions. */
export function watchesMetric(alarm: SimAlarm, metric: { Namespace?: string; MetricName?: string; Dimensions?: AlarmDimension[] }): boolean {
  const config = alarm.config;
  if (config.Namespace !== metric.Namespace || config.MetricName !== metric.MetricName) return false;
  const key = (dims: AlarmDimension[] | undefined) => (dims ?? []).map((d) => `${d.Name}=${d.Value}`).sort().join('\n');
  return key(config.Dimensions as AlarmDimension[] | undefined) === key(metric.Dimensions);
}

/** The recorded value in effect at `at` (the last state change at or before it). */
export function valueAt(alarm: SimAlarm, at: number): number | undefined {
  let value: number | undefined;
  for (const change of alarm.history) {
    if (change.at > at) break;
    value = change.value;
  }
  return value;
}
