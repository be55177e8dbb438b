import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aws } from '../support/aws-cli.js';
import { DEPLOY_IAM_POLICY, type E2eStack } from '../support/e2e-stack.js';
import { blocksJson, repliesOf, summaryReply, type OpenGate } from '../support/e2e-thread.js';
import { answerRollbackUntilSummary, clickRollBack, GUARD_CHANNEL as CHANNEL, rollbackCard, startGuardBreach, type GuardBreachStage } from '../support/guard-breach-stack.js';
import { until } from '../support/until.js';

/**
 * Issue 29 through Slack with a CloudWatch guard: an operator's alarm, created OK with the `aws` CLI before the
 * upgrade, is set to ALARM with the CLI while the bot replaces the self-managed nodes; the guard stops the upgrade;
 * a requester clicks Roll back on the breach card; the upgrade ends Aborted and the rollback takes batch back to
 * 1.30 although the alarm is still in ALARM (no guard stops a rollback; its cards show the guard for information).
 */
/** deploy/'s policy, plus what the operator does with the aws CLI (the bot never puts or sets alarms). */
const OPERATOR_TOO = {
  ...DEPLOY_IAM_POLICY,
  Statement: [...[DEPLOY_IAM_POLICY.Statement].flat(), { Sid: 'TestOperatorAlarms', Effect: 'Allow' as const, Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:SetAlarmState'], Resource: '*' }],
};
let stage: GuardBreachStage;
let stack: E2eStack;
let breach: OpenGate;

const cli = (...args: string[]) => aws(stack.sim, 'cloudwatch', ...args);
const setAlarm = async (state: 'OK' | 'ALARM', reason: string) => {
  const set = await cli('set-alarm-state', '--alarm-name', 'checkout-5xx', '--state-value', state, '--state-reason', reason);
  if (!set.ok) throw new Error(`aws cloudwatch set-alarm-state ${state}: ${set.stderr}`);
};

beforeAll(async () => {
  stage = await startGuardBreach({
    nodes: 5,
    trainerFails: false,
    iamPolicy: OPERATOR_TOO,
    guards: () => [{ name: 'checkout 5xx', cloudwatch: { alarmNames: ['checkout-5xx'] }, interval: '1s' }],
    before: async (started) => {
      stack = started;
      const put = await cli('put-metric-alarm', '--alarm-name', 'checkout-5xx', '--namespace', 'AWS/ApplicationELB', '--metric-name', 'HTTPCode_Target_5XX_Count', '--statistic', 'Sum', '--period', '60', '--evaluation-periods', '1', '--threshold', '10', '--comparison-operator', 'GreaterThanThreshold');
      if (!put.ok) throw new Error(`aws cloudwatch put-metric-alarm: ${put.stderr}`);
      await setAlarm('OK', 'quiet');
    },
    // The alarm fires once the bot has replaced a node.
    breachWhen: async (started) => {
      if ((await started.acceptedCalls('TerminateInstanceInAutoScalingGroup')).length === 0) return false;
      await setAlarm('ALARM', 'Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (10.0).');
      return true;
    },
  });
  ({ stack, breach } = stage);
}, 300_000);

afterAll(async () => {
  await stage?.close();
});

describe('a CloudWatch guard, then Roll back on its breach card', () => {
  it('posts the breach card with the alarm and offers Roll back', () => {
    expect(breach.message.text).toContain('Guard "checkout 5xx" stopped the upgrade of batch');
    expect(blocksJson(breach.message)).toMatch(/🔴 \*checkout 5xx\*: breached since \d\d:\d\d:\d\d UTC, 1 alarm in ALARM: checkout-5xx/);
    expect(breach.labels).toEqual(['Resume', 'Roll back to 1.30', 'Force', 'Abort']);
  });

  it('aborts the upgrade and rolls batch back to 1.30 while the alarm is still in ALARM', async () => {
    expect(await clickRollBack(stack, breach, 'U0REQ')).toMatch(/^Started rolling back batch from 1\.31 to 1\.30 \(job `[^`]+`\)/);
    expect((await until(() => summaryReply(stack.fake, CHANNEL), 'the upgrade summary', 60_000)).text).toMatch(/^Upgrade 1\.30 → 1\.31: \S* ?Aborted/u);
    // The click's thread line goes through the outbox and may follow the summary: wait for it as a reader would.
    expect(await until(() => repliesOf(stack.fake, CHANNEL).some((reply) => reply.text.startsWith('⏪ <@U0REQ> chose Roll back on the breach card: the upgrade was aborted where the guard held it.')), 'the thread to say the abort and the rollback', 60_000)).toBe(true);
    // Guards never stop a rollback: it runs although the alarm is still in ALARM, and its cards say so.
    await until(() => rollbackCard(stack)?.replies.some((reply) => /🔴 \*checkout 5xx\*/.test(blocksJson(reply))), 'the rollback showing the guard for information', 120_000);
    const { summary } = await answerRollbackUntilSummary(stack);
    expect(summary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect((await stack.eksClient().send(new DescribeClusterCommand({ name: 'batch' }))).cluster!.version).toBe('1.30');
    expect(stack.deniedCalls()).toEqual([]);
  }, 600_000);
});
