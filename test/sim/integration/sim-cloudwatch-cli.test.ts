import { beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '@eks-upgrade-bot/sim';
import { aws } from '../../support/aws-cli.js';
import { AWS_CLI, requireTool, skipWithout } from '../../support/required-tool.js';
import { simControl, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * The simulated CloudWatch through the real `aws` CLI (botocore speaks JSON 1.0 to it and names errors by the
 * x-amzn-query-error header), as an operator sets up and fires the alarm a CloudWatch guard watches (issue 29).
 */
const alarm = (name: string, ...extra: string[]) => [
  'cloudwatch', 'put-metric-alarm', '--alarm-name', name, '--namespace', 'AWS/ApplicationELB', '--metric-name', 'HTTPCode_Target_5XX_Count',
  '--dimensions', 'Name=LoadBalancer,Value=app/shop/50dc6c495c0c9188', '--statistic', 'Sum', '--period', '60', '--evaluation-periods', '2',
  '--threshold', '10', '--comparison-operator', 'GreaterThanThreshold', ...extra,
];

describe.skipIf(skipWithout(AWS_CLI))('CloudWatch alarms through the aws CLI', () => {
  const start = useSim();
  beforeEach(() => requireTool(AWS_CLI));

  it('puts an alarm, sets it to ALARM and back, and describes it by name, prefix and state', async () => {
    const s = await start('demo', { clock: createManualClock() });
    for (const name of ['shop-5xx', 'shop-latency', 'orders-5xx']) expect((await aws(s, ...alarm(name))).ok).toBe(true);

    const created = await aws(s, 'cloudwatch', 'describe-alarms', '--alarm-names', 'shop-5xx');
    expect(created.json.MetricAlarms).toEqual([
      expect.objectContaining({
        AlarmName: 'shop-5xx',
        AlarmArn: 'arn:aws:cloudwatch:us-west-2:111122223333:alarm:shop-5xx',
        StateValue: 'INSUFFICIENT_DATA',
        StateReason: 'Unchecked: Initial alarm creation',
        Threshold: 10,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'LoadBalancer', Value: 'app/shop/50dc6c495c0c9188' }],
      }),
    ]);

    expect((await aws(s, 'cloudwatch', 'set-alarm-state', '--alarm-name', 'shop-5xx', '--state-value', 'ALARM', '--state-reason', 'Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (10.0).')).ok).toBe(true);
    const inAlarm = await aws(s, 'cloudwatch', 'describe-alarms', '--state-value', 'ALARM');
    expect(inAlarm.json.MetricAlarms.map((a: any) => [a.AlarmName, a.StateReason])).toEqual([['shop-5xx', 'Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (10.0).']]);

    // The CLI follows NextToken itself: the simulator's small pages still give every alarm of the prefix.
    const shop = await aws(s, 'cloudwatch', 'describe-alarms', '--alarm-name-prefix', 'shop-', '--query', 'MetricAlarms[].AlarmName');
    expect([...shop.json].sort()).toEqual(['shop-5xx', 'shop-latency']);

    await aws(s, 'cloudwatch', 'set-alarm-state', '--alarm-name', 'shop-5xx', '--state-value', 'OK', '--state-reason', 'recovered');
    expect((await aws(s, 'cloudwatch', 'describe-alarms', '--state-value', 'ALARM')).json.MetricAlarms).toEqual([]);
    expect((await simControl(s, 'GET', 'calls?operation=SetAlarmState')).calls.map((c: any) => c.target)).toEqual(['shop-5xx', 'shop-5xx']);
  });

  it('answers the errors CloudWatch answers', async () => {
    const s = await start('demo', { clock: createManualClock() });
    await aws(s, ...alarm('shop-5xx'));

    const missing = await aws(s, 'cloudwatch', 'set-alarm-state', '--alarm-name', 'nope', '--state-value', 'ALARM', '--state-reason', 'test');
    expect(missing.stderr).toContain('An error occurred (ResourceNotFound) when calling the SetAlarmState operation: Alarm nope does not exist in us-west-2.');

    const both = await aws(s, 'cloudwatch', 'describe-alarms', '--alarm-names', 'shop-5xx', '--alarm-name-prefix', 'shop');
    expect(both.stderr).toContain('An error occurred (InvalidParameterCombination) when calling the DescribeAlarms operation');

    const long = await aws(s, ...alarm('x'.repeat(256)));
    expect(long.stderr).toContain("An error occurred (ValidationError) when calling the PutMetricAlarm operation: 1 validation error detected: Value 'xxxx");
    expect(long.stderr).toContain("at 'alarmName' failed to satisfy constraint: Member must have length less than or equal to 255");

    const badToken = await aws(s, 'cloudwatch', 'describe-alarms', '--starting-token', 'not-a-token');
    expect(badToken.stderr).toContain('(InvalidNextToken)');

    const period = await aws(s, 'cloudwatch', 'put-metric-alarm', '--alarm-name', 'odd', '--namespace', 'App', '--metric-name', 'Errors', '--statistic', 'Sum', '--period', '45', '--evaluation-periods', '1', '--threshold', '1', '--comparison-operator', 'GreaterThanThreshold');
    expect(period.stderr).toContain('(ValidationError) when calling the PutMetricAlarm operation: The parameter Period must be 10, 20, 30 or a multiple of 60, got 45.');

    const reasonData = await aws(s, 'cloudwatch', 'set-alarm-state', '--alarm-name', 'shop-5xx', '--state-value', 'ALARM', '--state-reason', 'x', '--state-reason-data', '{not json');
    expect(reasonData.stderr).toContain('(InvalidFormat)');
  });
});
