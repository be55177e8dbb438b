import { CloudWatchClient, GetMetricDataCommand, paginateDescribeAlarms, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type { GuardConfig } from '../config/guards-config.js';
import type { GuardReading } from '../ports/guards/guard-port.js';
import { clientCache, instrumented, sdkClientConfig, type AwsAdapterOptions, type ClusterAwsTarget } from './aws-client-config.js';
import { collectPages } from './collect-pages.js';
import { describeAwsError } from './describe-aws-error.js';

/**
 * A CloudWatch guard: DescribeAlarms by AlarmNames (at most 100 per call, the API's limit) or AlarmNamePrefix,
 * following NextToken; breached while any is in ALARM. GetMetricData draws the sparkline of the first alarm's metric
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_DescribeAlarms.html, API_GetMetricData.html).
 * The alarms live in the guard's region, else the cluster's, and are read with the cluster's credentials.
 */
type CloudWatchGuard = GuardConfig & { source: Extract<GuardConfig['source'], { kind: 'cloudwatch' }> };

export interface CloudWatchGuardReader {
  read(guard: CloudWatchGuard, cluster: ClusterAwsTarget): Promise<GuardReading>;
  history(guard: CloudWatchGuard, cluster: ClusterAwsTarget, fromMs: number, toMs: number, stepMs: number): Promise<Array<number | undefined> | undefined>;
}

const NAMES_PER_CALL = 100;

export function createCloudWatchGuardReader(opts: AwsAdapterOptions = {}): CloudWatchGuardReader {
  const clientFor = clientCache((target) => instrumented(new CloudWatchClient(sdkClientConfig('monitoring', target, opts)), 'cloudwatch', opts.metrics));
  const targetOf = (guard: CloudWatchGuard, cluster: ClusterAwsTarget): ClusterAwsTarget => ({ region: guard.source.region ?? cluster.region, ...(cluster.roleArn ? { roleArn: cluster.roleArn } : {}) });

  async function alarmsOf(guard: CloudWatchGuard, cluster: ClusterAwsTarget): Promise<MetricAlarm[]> {
    const client = clientFor(targetOf(guard, cluster));
    const { alarmNames, alarmNamePrefix } = guard.source;
    if (alarmNamePrefix) return collectPages(paginateDescribeAlarms({ client }, { AlarmNamePrefix: alarmNamePrefix }), (page) => page.MetricAlarms);
    const alarms: MetricAlarm[] = [];
    for (let at = 0; at < alarmNames!.length; at += NAMES_PER_CALL) {
      const names = alarmNames!.slice(at, at + NAMES_PER_CALL);
      alarms.push(...(await collectPages(paginateDescribeAlarms({ client }, { AlarmNames: names }), (page) => page.MetricAlarms)));
    }
    return alarms;
  }

  return {
    async read(guard, cluster) {
      let alarms: MetricAlarm[];
      try {
        alarms = await alarmsOf(guard, cluster);
      } catch (error) {
        return { kind: 'error', reason: `cannot read guard ${guard.name}: ${describeAwsError('DescribeAlarms', error)}` };
      }
      const found = new Set(alarms.map((alarm) => alarm.AlarmName));
      return {
        kind: 'alarms',
        alarms: alarms.map((alarm) => ({
          name: alarm.AlarmName ?? '(unnamed)',
          state: (alarm.StateValue ?? 'INSUFFICIENT_DATA') as 'OK' | 'ALARM' | 'INSUFFICIENT_DATA',
          ...(alarm.StateReason ? { reason: alarm.StateReason } : {}),
          ...(alarm.MetricName ? { metric: `${alarm.Namespace ?? ''} ${alarm.MetricName}`.trim() } : {}),
        })),
        missing: (guard.source.alarmNames ?? []).filter((name) => !found.has(name)),
      };
    },

    async history(guard, cluster, fromMs, toMs, stepMs) {
      try {
        const alarms = await alarmsOf(guard, cluster);
        const alarm = alarms.find((one) => one.StateValue === 'ALARM' && one.MetricName) ?? alarms.find((one) => one.MetricName);
        if (!alarm?.MetricName || !alarm.Namespace) return undefined;
        const period = Math.max(60, Math.round(stepMs / 60_000) * 60);
        const answer = await clientFor(targetOf(guard, cluster)).send(
          new GetMetricDataCommand({
            StartTime: new Date(fromMs),
            EndTime: new Date(toMs),
            ScanBy: 'TimestampAscending',
            MetricDataQueries: [{
              Id: 'guard',
              MetricStat: { Metric: { Namespace: alarm.Namespace, MetricName: alarm.MetricName, Dimensions: alarm.Dimensions }, Period: period, Stat: alarm.Statistic ?? alarm.ExtendedStatistic ?? 'Average' },
            }],
          }),
        );
        const result = answer.MetricDataResults?.[0];
        const byTime = new Map((result?.Timestamps ?? []).map((time, index) => [Math.floor(time.getTime() / (period * 1000)), result!.Values?.[index]]));
        const points: Array<number | undefined> = [];
        for (let at = fromMs; at <= toMs; at += period * 1000) points.push(byTime.get(Math.floor(at / (period * 1000))));
        return points;
      } catch {
        return undefined;
      }
    },
  };
}

