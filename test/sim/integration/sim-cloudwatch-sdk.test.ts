import { CloudWatchClient, DescribeAlarmsCommand, GetMetricDataCommand, PutMetricAlarmCommand, SetAlarmStateCommand, paginateDescribeAlarms, type PutMetricAlarmCommandInput } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simClientConfig, simControl, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * The simulated CloudWatch through @aws-sdk/client-cloudwatch (AWS JSON 1.0, query-compatible errors), as the bot's
 * CloudWatch guards read it: DescribeAlarms by names or prefix with paging, and GetMetricData for the sparkline of an
 * alarm's metric over the last 30 minutes — synthesized from the alarm's state changes, since nothing publishes data.
 */
const METRIC = { Namespace: 'AWS/ApplicationELB', MetricName: 'HTTPCode_Target_5XX_Count', Dimensions: [{ Name: 'LoadBalancer', Value: 'app/shop/50dc6c495c0c9188' }] };
const alarmInput = (name: string): PutMetricAlarmCommandInput => ({ AlarmName: name, ...METRIC, Statistic: 'Sum', Period: 60, EvaluationPeriods: 1, Threshold: 10, ComparisonOperator: 'GreaterThanThreshold' });
const MINUTE = 60_000;

describe('CloudWatch through the AWS SDK', () => {
  const start = useSim();
  const client = (s: SimServer) => new CloudWatchClient(simClientConfig(s));

  it('pages DescribeAlarms with MaxRecords and NextToken, and refuses what CloudWatch refuses', async () => {
    const s = await start('demo', { clock: createManualClock() });
    const cw = client(s);
    for (let i = 1; i <= 7; i++) await cw.send(new PutMetricAlarmCommand(alarmInput(`shop-${i}`)));
    await cw.send(new PutMetricAlarmCommand(alarmInput('orders-1')));

    const first = await cw.send(new DescribeAlarmsCommand({ AlarmNamePrefix: 'shop-', MaxRecords: 5 }));
    expect(first.MetricAlarms).toHaveLength(5);
    expect(first.NextToken).toBeTruthy();
    const all: string[] = [];
    for await (const page of paginateDescribeAlarms({ client: cw }, { AlarmNamePrefix: 'shop-' })) all.push(...(page.MetricAlarms ?? []).map((a) => a.AlarmName!));
    expect(all.sort()).toEqual(['shop-1', 'shop-2', 'shop-3', 'shop-4', 'shop-5', 'shop-6', 'shop-7']);

    await expect(cw.send(new DescribeAlarmsCommand({ MaxRecords: 101 }))).rejects.toMatchObject({
      name: 'ValidationException', Code: 'ValidationError', $metadata: { httpStatusCode: 400 },
      message: "1 validation error detected: Value '101' at 'maxRecords' failed to satisfy constraint: Member must have value less than or equal to 100",
    });
    await expect(cw.send(new DescribeAlarmsCommand({ NextToken: 'forged' }))).rejects.toMatchObject({ name: 'InvalidNextToken', $metadata: { httpStatusCode: 400 } });
    await expect(cw.send(new DescribeAlarmsCommand({ AlarmNames: ['shop-1'], AlarmNamePrefix: 'shop' }))).rejects.toMatchObject({ name: 'InvalidParameterCombinationException', Code: 'InvalidParameterCombination' });
    await expect(cw.send(new SetAlarmStateCommand({ AlarmName: 'nope', StateValue: 'ALARM', StateReason: 'x' }))).rejects.toMatchObject({ name: 'ResourceNotFound', $metadata: { httpStatusCode: 404 } });
    await expect(cw.send(new DescribeAlarmsCommand({ AlarmNames: ['a'.repeat(256)] }))).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('Member must have length less than or equal to 255') });
    // Alarms are regional: another region's DescribeAlarms does not see them.
    const elsewhere = new CloudWatchClient(simClientConfig(s, 'eu-west-1'));
    expect((await elsewhere.send(new DescribeAlarmsCommand({}))).MetricAlarms).toEqual([]);
  });

  it("answers GetMetricData for an alarm's metric with the values its state changes stood for", async () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1, 12, 0));
    const s = await start('demo', { clock });
    const cw = client(s);
    await cw.send(new PutMetricAlarmCommand(alarmInput('shop-5xx')));
    await clock.advance(10 * MINUTE);
    await cw.send(new SetAlarmStateCommand({ AlarmName: 'shop-5xx', StateValue: 'OK', StateReason: 'fine' }));
    await clock.advance(10 * MINUTE);
    await cw.send(new SetAlarmStateCommand({ AlarmName: 'shop-5xx', StateValue: 'ALARM', StateReason: 'Threshold Crossed', StateReasonData: JSON.stringify({ version: '1.0', recentDatapoints: [37] }) }));
    await clock.advance(10 * MINUTE);

    const now = clock.now();
    const answer = await cw.send(new GetMetricDataCommand({
      StartTime: new Date(now - 30 * MINUTE), EndTime: new Date(now), ScanBy: 'TimestampAscending',
      MetricDataQueries: [{ Id: 'errors', MetricStat: { Metric: METRIC, Period: 60, Stat: 'Sum' } }, { Id: 'other', MetricStat: { Metric: { ...METRIC, Dimensions: [] }, Period: 60, Stat: 'Sum' } }],
    }));
    const [errors, other] = answer.MetricDataResults!;
    // INSUFFICIENT_DATA for the first 10 minutes (no points), then OK (below 10), then ALARM at the datapoint given.
    expect(errors.Timestamps!.map((t) => (t.getTime() - (now - 30 * MINUTE)) / MINUTE)).toEqual([...Array(20).keys()].map((i) => i + 10));
    expect(errors.Values).toEqual([...Array(10).fill(9), ...Array(10).fill(37)]);
    expect(errors).toMatchObject({ Id: 'errors', Label: 'HTTPCode_Target_5XX_Count', StatusCode: 'Complete' });
    // A metric no alarm watches (other dimensions) has no data here.
    expect(other.Values).toEqual([]);

    await expect(cw.send(new GetMetricDataCommand({ StartTime: new Date(now), EndTime: new Date(now - MINUTE), MetricDataQueries: [{ Id: 'errors', MetricStat: { Metric: METRIC, Period: 60, Stat: 'Sum' } }] })))
      .rejects.toMatchObject({ Code: 'ValidationError', message: 'The parameter StartTime must be less than the parameter EndTime.' });
    await expect(cw.send(new GetMetricDataCommand({ StartTime: new Date(now - MINUTE), EndTime: new Date(now), MetricDataQueries: [{ Id: 'Errors', MetricStat: { Metric: METRIC, Period: 60, Stat: 'Sum' } }] })))
      .rejects.toMatchObject({ Code: 'ValidationError', message: expect.stringContaining('must start with a lower-case letter') });
  });

  it('throttles CloudWatch alone when a fault says so, as CloudWatch does (400 Throttling)', async () => {
    const s = await start('demo', { clock: createManualClock(), faults: { services: { monitoring: { throttleRate: 1 } } } });
    await expect(new CloudWatchClient({ ...simClientConfig(s), maxAttempts: 1 }).send(new DescribeAlarmsCommand({}))).rejects.toMatchObject({ Code: 'Throttling', $metadata: { httpStatusCode: 400 } });
    expect((await simControl(s, 'GET', 'faults')).services).toEqual({ monitoring: { throttleRate: 1 } });
  });

  it("holds callers to the simulator's IAM policy: cloudwatch:DescribeAlarms and cloudwatch:GetMetricData", async () => {
    const s = await start('demo', {
      clock: createManualClock(),
      iamPolicy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['cloudwatch:DescribeAlarms', 'cloudwatch:PutMetricAlarm'], Resource: '*' }] },
    });
    const cw = client(s);
    await cw.send(new PutMetricAlarmCommand(alarmInput('shop-5xx')));
    expect((await cw.send(new DescribeAlarmsCommand({}))).MetricAlarms!.map((a) => a.AlarmName)).toEqual(['shop-5xx']);
    await expect(cw.send(new GetMetricDataCommand({ StartTime: new Date(0), EndTime: new Date(60_000), MetricDataQueries: [{ Id: 'm', MetricStat: { Metric: METRIC, Period: 60, Stat: 'Sum' } }] }))).rejects.toMatchObject({
      Code: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringContaining('is not authorized to perform: cloudwatch:GetMetricData on resource: * because no identity-based policy allows the cloudwatch:GetMetricData action'),
    });
    await expect(cw.send(new SetAlarmStateCommand({ AlarmName: 'shop-5xx', StateValue: 'ALARM', StateReason: 'x' }))).rejects.toMatchObject({
      Code: 'AccessDenied',
      message: expect.stringContaining('cloudwatch:SetAlarmState on resource: arn:aws:cloudwatch:us-west-2:111122223333:alarm:shop-5xx'),
    });
  });
});
