import { describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { aws } from '../support/aws-cli.js';
import { waitForJobState, type EngineHarness } from './engine-harness.js';
import { kit, useGuardKit, NODES, AVAILABILITY, gatesOf, notes, startGuardedUpgrade } from './engine-guards-kit.js';

/**
 * Guards in the engine (issue 29), one case per file so the suite's two workers run them side by side (each waits
 * on a real Prometheus's scrapes): a guard whose Prometheus stops mid-upgrade halts it; a CloudWatch alarm set by
 * the aws CLI stops it again. The set-up is engine-guards-kit.ts.
 */
useGuardKit();

describe('upgrade engine: a guard stops the bot replacing nodes', () => {
  it('halts with "cannot read guard …" when the guard\'s server stops mid-upgrade, and breaches on a CloudWatch alarm set by the aws CLI after a Force', async () => {
    // The alarm exists and is OK before the upgrade starts (a missing or INSUFFICIENT_DATA alarm would halt it: missing data).
    const cli = (harness: EngineHarness, ...args: string[]) => aws(harness.sim, 'cloudwatch', ...args);
    const { harness, engine, jobId } = await startGuardedUpgrade(({ prometheus: url }) => [
      { name: 'trainer available', prometheus: { url, query: AVAILABILITY, breachWhen: '< 0.5', for: '1s' }, interval: '1s' },
      { name: 'checkout 5xx', cloudwatch: { alarmNames: ['checkout-5xx'] }, interval: '1s' },
    ], {
      before: async (harness) => {
        const put = await cli(harness, 'put-metric-alarm', '--alarm-name', 'checkout-5xx', '--namespace', 'AWS/ApplicationELB', '--metric-name', 'HTTPCode_Target_5XX_Count', '--statistic', 'Sum', '--period', '60', '--evaluation-periods', '1', '--threshold', '10', '--comparison-operator', 'GreaterThanThreshold');
        expect(put.stderr).toBe('');
        expect((await cli(harness, 'set-alarm-state', '--alarm-name', 'checkout-5xx', '--state-value', 'OK', '--state-reason', 'quiet')).ok).toBe(true);
      },
    });
    await until(() => harness.calls('TerminateInstanceInAutoScalingGroup').length >= 1, () => `the first node to be replaced (cards so far: ${JSON.stringify(gatesOf(harness).map((gate) => [gate.gateId, gate.details[0]]))})`, 150_000);
    // Sentences name the server by its origin; the test server also has a path of its own.
    const prometheusUrl = new URL(kit.prometheus!.url).origin;
    await kit.prometheus!.stop();
    kit.prometheus = undefined;
    const unreadable = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-1'), 'the card of the unreadable guard', 60_000);
    expect(unreadable.details[0]).toBe(`⚪ *trainer available*: unknown since ${unreadable.details[0].match(/\d\d:\d\d:\d\d/)![0]} UTC: cannot read guard trainer available: Prometheus at ${prometheusUrl} cannot be reached (ECONNREFUSED)`);
    const terminatedAtHold = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(terminatedAtHold).toBeLessThan(NODES);

    // Force past it (the Prometheus is down for maintenance): the job carries on, said in the thread.
    await engine.control.answerGate({ jobId, gateId: 'guard-1', revision: unreadable.revision, action: 'force', userId: 'U0APP', reason: 'prometheus is being redeployed; watching dashboards by hand' });
    await until(() => notes(harness).some((text) => text.startsWith('Forced on by <@U0APP> past guard "trainer available": prometheus is being redeployed')), 'the Force in the thread');
    await until(() => harness.calls('TerminateInstanceInAutoScalingGroup').length > terminatedAtHold, 'the bot to replace nodes again', 60_000);

    // The alarm fires: the CloudWatch guard stops the bot again, with a card of its own.
    expect((await cli(harness, 'set-alarm-state', '--alarm-name', 'checkout-5xx', '--state-value', 'ALARM', '--state-reason', 'Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (10.0).')).ok).toBe(true);
    const alarmCard = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-2'), 'the CloudWatch breach card', 60_000);
    const terminatedAtAlarm = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(alarmCard.title).toBe('Guard "checkout 5xx" stopped the upgrade of batch');
    expect(alarmCard.details.join('\n')).toMatch(/🔴 \*checkout 5xx\*: breached since \d\d:\d\d:\d\d UTC, 1 alarm in ALARM: checkout-5xx/);
    expect(alarmCard.details.join('\n')).toContain('watches alarms checkout-5xx');
    await harness.parked(jobId, 60_000);
    await engine.control.answerGate({ jobId, gateId: 'guard-2', revision: alarmCard.revision, action: 'abort', userId: 'U0APP' });
    const done = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 60_000);
    expect(done.state).toBe('aborted');
    expect(harness.calls('TerminateInstanceInAutoScalingGroup').length).toBe(terminatedAtAlarm);
  }, 400_000);
});
