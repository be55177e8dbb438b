import type { SimStrictness } from '../strictness.js';
import { AwsApiError } from './aws-error.js';
import { alarmKey, alarmsIn, valueAt, valueForState, watchesMetric, type AlarmDimension, type AlarmState, type AlarmStore, type SimAlarm } from './cloudwatch-alarms.js';
import { epochSeconds } from './eks/eks-wire.js';
import { servePage } from './list-pages.js';

/**
 * CloudWatch (endpoint prefix `monitoring`): PutMetricAlarm, DescribeAlarms, SetAlarmState and GetMetricData, over the
 * protocol both clients here speak — AWS JSON 1.0, `X-Amz-Target: GraniteServiceVersion20100801.<Operation>`, with
 * `x-amzn-query-mode: true` (the service model's awsQueryCompatible trait; @aws-sdk/client-cloudwatch 3.11xx picks
 * AwsJson1_0Protocol, botocore 1.43 picks "json" first from the model's protocols [smithy-rpc-v2-cbor, json, query]).
 * Errors keep their query-protocol codes in `x-amzn-query-error: <Code>;Sender`, which both clients read
 * (sim-server.ts writes it). Timestamps are epoch seconds, as JSON 1.0 sends them.
 *
 * Rules, from the API reference (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/) and its Common
 * Errors page: member constraints answer ValidationError with Coral's "1 validation error detected: Value … at '…'
 * failed to satisfy constraint: …" sentence; SetAlarmState on an alarm that does not exist answers 404
 * ResourceNotFound; a NextToken the service did not issue answers InvalidNextToken.
 */
export const CLOUDWATCH_TARGET_PREFIX = 'GraniteServiceVersion20100801.';

const validation = (message: string) => new AwsApiError(400, 'ValidationError', message);
const violation = (field: string, value: unknown, constraint: string) =>
  validation(`1 validation error detected: Value ${value === undefined || value === null ? 'null' : `'${Array.isArray(value) ? `[${value.join(', ')}]` : String(value)}'`} at '${field}' failed to satisfy constraint: ${constraint}`);
const camel = (member: string) => member.charAt(0).toLowerCase() + member.slice(1);

function requireString(body: Record<string, unknown>, member: string, min: number, max: number): string {
  const value = body[member];
  if (value === undefined || value === null) throw violation(camel(member), value, 'Member must not be null');
  return checkString(value, camel(member), min, max);
}

function optionalString(body: Record<string, unknown>, member: string, min: number, max: number): string | undefined {
  const value = body[member];
  return value === undefined || value === null ? undefined : checkString(value, camel(member), min, max);
}

function checkString(value: unknown, field: string, min: number, max: number): string {
  if (typeof value !== 'string') throw new AwsApiError(400, 'SerializationException', `${field} must be a string, got ${JSON.stringify(value)}.`);
  if (value.length < min) throw violation(field, value, `Member must have length greater than or equal to ${min}`);
  if (value.length > max) throw violation(field, value, `Member must have length less than or equal to ${max}`);
  return value;
}

function optionalInteger(body: Record<string, unknown>, member: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = body[member];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new AwsApiError(400, 'SerializationException', `${camel(member)} must be an integer, got ${JSON.stringify(value)}.`);
  if (value < min) throw violation(camel(member), value, `Member must have value greater than or equal to ${min}`);
  if (value > max) throw violation(camel(member), value, `Member must have value less than or equal to ${max}`);
  return value;
}

function enumValue<T extends string>(body: Record<string, unknown>, member: string, allowed: readonly T[], required = false): T | undefined {
  const value = body[member];
  if (value === undefined || value === null) {
    if (required) throw violation(camel(member), value, 'Member must not be null');
    return undefined;
  }
  if (!allowed.includes(value as T)) throw violation(camel(member), value, `Member must satisfy enum value set: [${allowed.join(', ')}]`);
  return value as T;
}

function stringList(body: Record<string, unknown>, member: string, maxItems: number, min: number, max: number): string[] {
  const value = body[member];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new AwsApiError(400, 'SerializationException', `${camel(member)} must be a list, got ${JSON.stringify(value)}.`);
  if (value.length > maxItems) throw violation(camel(member), value, `Member must have length less than or equal to ${maxItems}`);
  return value.map((item, index) => checkString(item, `${camel(member)}.${index + 1}.member`, min, max));
}

const STATES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const;
const STATISTICS = ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'] as const;
const COMPARISONS = [
  'GreaterThanOrEqualToThreshold', 'GreaterThanThreshold', 'LessThanThreshold', 'LessThanOrEqualToThreshold',
  'LessThanLowerOrGreaterThanUpperThreshold', 'LessThanLowerThreshold', 'GreaterThanUpperThreshold',
] as const;
const TREAT_MISSING = ['breaching', 'notBreaching', 'ignore', 'missing'] as const;

/** Dimensions: at most 30, Name 1–255, Value 1–1024 (API_Dimension). */
function dimensionsOf(value: unknown, field: string): AlarmDimension[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new AwsApiError(400, 'SerializationException', `${field} must be a list of {Name, Value}.`);
  if (value.length > 30) throw violation(field, `${value.length} items`, 'Member must have length less than or equal to 30');
  return value.map((d: any, index) => ({
    Name: checkString(d?.Name, `${field}.${index + 1}.member.name`, 1, 255),
    Value: checkString(d?.Value, `${field}.${index + 1}.member.value`, 1, 1024),
  }));
}

/**
 * PutMetricAlarm (API_PutMetricAlarm): creates the alarm in INSUFFICIENT_DATA, or replaces the configuration of an
 * existing one leaving its state unchanged ("When you update an existing alarm, its state is left unchanged, but
 * the update completely overwrites the previous configuration of the alarm").
 */
function putMetricAlarm(store: AlarmStore, body: Record<string, unknown>, region: string, accountId: string, now: number): Record<string, never> {
  const name = requireString(body, 'AlarmName', 1, 255);
  optionalString(body, 'AlarmDescription', 0, 1024);
  for (const actions of ['OKActions', 'AlarmActions', 'InsufficientDataActions']) stringList(body, actions, 5, 1, 1024);
  const usesMetrics = Array.isArray(body.Metrics) && body.Metrics.length > 0;
  const metricName = optionalString(body, 'MetricName', 1, 255);
  const namespace = optionalString(body, 'Namespace', 1, 255);
  if (namespace?.startsWith(':')) throw violation('namespace', namespace, 'Member must satisfy regular expression pattern: [^:].*');
  const statistic = enumValue(body, 'Statistic', STATISTICS);
  const extended = optionalString(body, 'ExtendedStatistic', 1, 255);
  dimensionsOf(body.Dimensions, 'dimensions');
  const period = optionalInteger(body, 'Period', 1);
  const evaluationPeriods = optionalInteger(body, 'EvaluationPeriods', 1);
  const datapoints = optionalInteger(body, 'DatapointsToAlarm', 1);
  enumValue(body, 'ComparisonOperator', COMPARISONS);
  enumValue(body, 'TreatMissingData', TREAT_MISSING);
  if (body.Threshold !== undefined && typeof body.Threshold !== 'number') throw new AwsApiError(400, 'SerializationException', `threshold must be a number, got ${JSON.stringify(body.Threshold)}.`);
  // "If you use the Metrics parameter, you cannot include the Namespace, MetricName, Dimensions, Period, Unit,
  // Statistic, or ExtendedStatistic parameters of PutMetricAlarm in the same operation."
  if (usesMetrics && ['MetricName', 'Namespace', 'Dimensions', 'Period', 'Unit', 'Statistic', 'ExtendedStatistic'].some((k) => body[k] !== undefined)) {
    throw new AwsApiError(400, 'InvalidParameterCombination', 'Metrics cannot be used with MetricName, Namespace, Dimensions, Period, Unit, Statistic or ExtendedStatistic.');
  }
  if (!usesMetrics) {
    // A static-threshold alarm on one metric needs its metric, period, statistic and comparison.
    if (metricName === undefined) throw validation('MetricName must not be null');
    if (namespace === undefined) throw validation('Namespace must not be null');
    if (period === undefined) throw validation('Period must not be null');
    if (statistic === undefined && extended === undefined) throw validation('Statistic or ExtendedStatistic must be specified');
    if (statistic !== undefined && extended !== undefined) throw new AwsApiError(400, 'InvalidParameterCombination', 'Statistic and ExtendedStatistic cannot be specified together.');
    // "Valid values are 10, 20, 30, and any multiple of 60."
    if (![10, 20, 30].includes(period) && period % 60 !== 0) throw validation(`The parameter Period must be 10, 20, 30 or a multiple of 60, got ${period}.`);
  }
  if (evaluationPeriods === undefined) throw validation('EvaluationPeriods must not be null');
  if (body.ComparisonOperator === undefined) throw validation('ComparisonOperator must not be null');
  if (body.Threshold === undefined && body.ThresholdMetricId === undefined) throw validation('Threshold or ThresholdMetricId must be specified');
  // "Period multiplied by EvaluationPeriods can't be more than 604,800 seconds. For alarms with a period of less than
  // one hour (3,600 seconds), the total evaluation period can't be longer than one day (86,400 seconds)."
  if (period !== undefined && period * evaluationPeriods > (period < 3600 ? 86_400 : 604_800)) {
    throw validation(`The evaluation period of the alarm (Period ${period} × EvaluationPeriods ${evaluationPeriods}) is longer than ${period < 3600 ? 'one day (86,400 s) for a period under one hour' : 'seven days (604,800 s)'}.`);
  }
  // DatapointsToAlarm is the M of "M out of N" (EvaluationPeriods is N).
  if (datapoints !== undefined && datapoints > evaluationPeriods) throw validation(`DatapointsToAlarm (${datapoints}) must not be greater than EvaluationPeriods (${evaluationPeriods}).`);

  const config = { ...body };
  delete config.Tags;
  const existing = store.get(alarmKey(region, name));
  if (existing) {
    existing.config = config;
    existing.configurationUpdatedAt = now;
    return {};
  }
  store.set(alarmKey(region, name), {
    region,
    name,
    arn: `arn:aws:cloudwatch:${region}:${accountId}:alarm:${name}`,
    config,
    configurationUpdatedAt: now,
    state: 'INSUFFICIENT_DATA',
    stateReason: 'Unchecked: Initial alarm creation',
    stateUpdatedAt: now,
    history: [{ at: now, state: 'INSUFFICIENT_DATA' }],
  });
  return {};
}

function wireAlarm(alarm: SimAlarm): Record<string, unknown> {
  const c = alarm.config;
  return {
    AlarmName: alarm.name,
    AlarmArn: alarm.arn,
    ...(c.AlarmDescription !== undefined ? { AlarmDescription: c.AlarmDescription } : {}),
    AlarmConfigurationUpdatedTimestamp: epochSeconds(alarm.configurationUpdatedAt),
    ActionsEnabled: c.ActionsEnabled ?? true,
    OKActions: c.OKActions ?? [],
    AlarmActions: c.AlarmActions ?? [],
    InsufficientDataActions: c.InsufficientDataActions ?? [],
    StateValue: alarm.state,
    StateReason: alarm.stateReason,
    ...(alarm.stateReasonData !== undefined ? { StateReasonData: alarm.stateReasonData } : {}),
    StateUpdatedTimestamp: epochSeconds(alarm.stateUpdatedAt),
    StateTransitionedTimestamp: epochSeconds(alarm.stateUpdatedAt),
    ...Object.fromEntries(
      ['MetricName', 'Namespace', 'Statistic', 'ExtendedStatistic', 'Period', 'Unit', 'EvaluationPeriods', 'DatapointsToAlarm', 'Threshold', 'ComparisonOperator', 'TreatMissingData', 'EvaluateLowSampleCountPercentile', 'Metrics', 'ThresholdMetricId']
        .filter((k) => c[k] !== undefined)
        .map((k) => [k, c[k]]),
    ),
    Dimensions: c.Dimensions ?? [],
  };
}

/**
 * DescribeAlarms (API_DescribeAlarms): AlarmNames (at most 100, each 1–255) or AlarmNamePrefix (1–255) — "If this
 * parameter is specified, you cannot specify AlarmNames" — StateValue, ActionPrefix, AlarmTypes; MaxRecords 1–100;
 * NextToken. Only metric alarms exist here, so CompositeAlarms is always empty.
 */
function describeAlarms(store: AlarmStore, body: Record<string, unknown>, region: string, strictness: SimStrictness): Record<string, unknown> {
  const names = stringList(body, 'AlarmNames', 100, 1, 255);
  const prefix = optionalString(body, 'AlarmNamePrefix', 1, 255);
  if (body.AlarmNames !== undefined && prefix !== undefined) {
    throw new AwsApiError(400, 'InvalidParameterCombination', 'AlarmNames and AlarmNamePrefix cannot be specified together: give one or the other.');
  }
  const state = enumValue(body, 'StateValue', STATES);
  const actionPrefix = optionalString(body, 'ActionPrefix', 1, 1024);
  const types = stringList(body, 'AlarmTypes', 2, 1, 255);
  for (const type of types) if (type !== 'MetricAlarm' && type !== 'CompositeAlarm') throw violation('alarmTypes', type, 'Member must satisfy enum value set: [CompositeAlarm, MetricAlarm]');
  const limit = optionalInteger(body, 'MaxRecords', 1, 100);
  const token = optionalString(body, 'NextToken', 0, 1024);
  const wanted = new Set(names);
  const matching =
    types.length > 0 && !types.includes('MetricAlarm')
      ? []
      : alarmsIn(store, region).filter(
          (alarm) =>
            (wanted.size === 0 || wanted.has(alarm.name)) &&
            (prefix === undefined || alarm.name.startsWith(prefix)) &&
            (state === undefined || alarm.state === state) &&
            (actionPrefix === undefined || ['OKActions', 'AlarmActions', 'InsufficientDataActions'].some((k) => ((alarm.config[k] as string[] | undefined) ?? []).some((a) => a.startsWith(actionPrefix)))),
        );
  const { page, nextToken } = servePage(matching, { limit, token: token || undefined }, { min: 1, max: 100, default: 50 }, strictness, {
    badLimit: (given) => violation('maxRecords', given, 'Member must have value less than or equal to 100'),
    badToken: () => new AwsApiError(400, 'InvalidNextToken', 'The next token specified is invalid.'),
  });
  return { MetricAlarms: page.map(wireAlarm), CompositeAlarms: [], ...(nextToken ? { NextToken: nextToken } : {}) };
}

/**
 * SetAlarmState (API_SetAlarmState): AlarmName, StateValue and StateReason (0–1023) required; StateReasonData
 * (0–4000) must be JSON, else InvalidFormat; an unknown alarm answers 404 ResourceNotFound. On AWS the alarm returns
 * to its computed state at its next evaluation; nothing evaluates here, so the state set stays until set again.
 */
function setAlarmState(store: AlarmStore, body: Record<string, unknown>, region: string, now: number): Record<string, never> {
  const name = requireString(body, 'AlarmName', 1, 255);
  const state = enumValue(body, 'StateValue', STATES, true)! as AlarmState;
  const reason = requireString(body, 'StateReason', 0, 1023);
  const reasonData = optionalString(body, 'StateReasonData', 0, 4000);
  if (reasonData !== undefined) {
    try {
      JSON.parse(reasonData);
    } catch {
      throw new AwsApiError(400, 'InvalidFormat', 'StateReasonData is not valid JSON.');
    }
  }
  const alarm = store.get(alarmKey(region, name));
  if (!alarm) throw new AwsApiError(404, 'ResourceNotFound', `Alarm ${name} does not exist in ${region}.`);
  alarm.state = state;
  alarm.stateReason = reason;
  alarm.stateReasonData = reasonData;
  alarm.stateUpdatedAt = now;
  alarm.history.push({ at: now, state, value: valueForState(alarm.config, state, reasonData) });
  return {};
}

const QUERY_ID = /^[a-z][a-zA-Z0-9_]*$/;

function epochMsOf(value: unknown, field: string): number {
  const ms = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? Date.parse(value) : NaN;
  if (value === undefined || value === null) throw violation(camel(field), value, 'Member must not be null');
  if (!Number.isFinite(ms)) throw new AwsApiError(400, 'SerializationException', `${camel(field)} must be a timestamp (epoch seconds), got ${JSON.stringify(value)}.`);
  return ms;
}

/**
 * GetMetricData (API_GetMetricData): MetricDataQueries (1–500, each Id 1–255 starting with a lower-case letter, unique,
 * with MetricStat {Metric, Period, Stat}), StartTime before EndTime, ScanBy TimestampDescending (default) or
 * TimestampAscending. One value per Period from StartTime to EndTime where the alarm watching that metric recorded
 * one (cloudwatch-alarms.ts); metric math Expressions are not evaluated here (ValidationError says so).
 */
function getMetricData(store: AlarmStore, body: Record<string, unknown>, region: string): Record<string, unknown> {
  const queries = body.MetricDataQueries;
  if (!Array.isArray(queries)) throw violation('metricDataQueries', undefined, 'Member must not be null');
  if (queries.length === 0 || queries.length > 500) throw validation(`MetricDataQueries must hold 1 to 500 queries, got ${queries.length}.`);
  const start = epochMsOf(body.StartTime, 'StartTime');
  const end = epochMsOf(body.EndTime, 'EndTime');
  if (end <= start) throw validation('The parameter StartTime must be less than the parameter EndTime.');
  const scanBy = enumValue(body, 'ScanBy', ['TimestampDescending', 'TimestampAscending'] as const) ?? 'TimestampDescending';
  // The service issues no NextToken here (every answer is complete), so any token is one it did not issue.
  if (body.NextToken !== undefined && body.NextToken !== null) throw new AwsApiError(400, 'InvalidNextToken', 'The next token specified is invalid.');
  const ids = new Set<string>();
  const results = queries.map((query: any, index: number) => {
    const id = checkString(query?.Id, `metricDataQueries.${index + 1}.member.id`, 1, 255);
    if (!QUERY_ID.test(id)) throw validation(`The value ${id} for parameter MetricDataQueries.member.${index + 1}.Id is not valid: it must start with a lower-case letter and contain only letters, digits and underscores.`);
    if (ids.has(id)) throw validation(`The value ${id} for parameter MetricDataQueries.member.${index + 1}.Id is used more than once.`);
    ids.add(id);
    if (query.Expression !== undefined) throw validation(`Query ${id}: this simulator does not evaluate metric math Expressions; give a MetricStat.`);
    const stat = query.MetricStat;
    if (!stat) throw validation(`Query ${id} must have exactly one of MetricStat or Expression.`);
    const metric = { Namespace: stat.Metric?.Namespace, MetricName: stat.Metric?.MetricName, Dimensions: dimensionsOf(stat.Metric?.Dimensions, `metricDataQueries.${index + 1}.member.metricStat.metric.dimensions`) };
    checkString(metric.MetricName, `metricDataQueries.${index + 1}.member.metricStat.metric.metricName`, 1, 255);
    checkString(metric.Namespace, `metricDataQueries.${index + 1}.member.metricStat.metric.namespace`, 1, 255);
    checkString(stat.Stat, `metricDataQueries.${index + 1}.member.metricStat.stat`, 1, 255);
    const period = stat.Period;
    if (!Number.isInteger(period) || period < 1) throw violation(`metricDataQueries.${index + 1}.member.metricStat.period`, period, 'Member must have value greater than or equal to 1');
    if (![1, 5, 10, 20, 30].includes(period) && period % 60 !== 0) throw validation(`The parameter MetricStat.Period must be 1, 5, 10, 20, 30 or a multiple of 60, got ${period}.`);
    const alarm = alarmsIn(store, region).find((one) => watchesMetric(one, metric));
    const points: Array<[number, number]> = [];
    const step = period * 1000;
    for (let at = Math.ceil(start / step) * step; at < end; at += step) {
      const value = alarm ? valueAt(alarm, at + step - 1) : undefined;
      if (value !== undefined) points.push([at, value]);
    }
    if (scanBy === 'TimestampDescending') points.reverse();
    return {
      Id: id,
      Label: typeof query.Label === 'string' ? query.Label : metric.MetricName,
      Timestamps: points.map(([at]) => epochSeconds(at)),
      Values: points.map(([, value]) => value),
      StatusCode: 'Complete',
    };
  });
  return { MetricDataResults: results.filter((_, index) => queries[index]?.ReturnData !== false), Messages: [] };
}

export function handleCloudWatch(store: AlarmStore, target: string, body: Record<string, unknown>, region: string, accountId: string, now: number, strictness: SimStrictness): Record<string, unknown> {
  const operation = target.slice(CLOUDWATCH_TARGET_PREFIX.length);
  switch (operation) {
    case 'PutMetricAlarm':
      return putMetricAlarm(store, body, region, accountId, now);
    case 'DescribeAlarms':
      return describeAlarms(store, body, region, strictness);
    case 'SetAlarmState':
      return setAlarmState(store, body, region, now);
    case 'GetMetricData':
      return getMetricData(store, body, region);
    default:
      throw new AwsApiError(400, 'InvalidAction', `The simulator's CloudWatch answers PutMetricAlarm, DescribeAlarms, SetAlarmState and GetMetricData, not ${operation}.`);
  }
}
