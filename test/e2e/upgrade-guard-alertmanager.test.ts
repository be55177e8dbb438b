import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eStack } from '../support/e2e-stack.js';
import { blocksJson, repliesOf, summaryReply, type OpenGate } from '../support/e2e-thread.js';
import { answerRollbackUntilSummary, clickRollBack, GUARD_CHANNEL as CHANNEL, startGuardBreach, type GuardBreachStage } from '../support/guard-breach-stack.js';
import { TRAINER_AVAILABILITY } from '../support/guard-scenario.js';
import { until } from '../support/until.js';

/**
 * Issue 29 through Slack with an Alertmanager guard: a real Prometheus rule fires TrainerUnavailable into a real
 * Alertmanager when the trainer fails on 1.31; the guard on critical alerts stops the upgrade; a requester clicks
 * Roll back on the breach card; the upgrade ends Aborted, the rollback takes batch back to 1.30, and the alert
 * resolves, so the guard recovers.
 */
const RULES = `groups:\n  - name: trainer\n    rules:\n      - alert: TrainerUnavailable\n        expr: '${TRAINER_AVAILABILITY} < 1'\n        labels: { severity: critical, namespace: batch }\n`;
let stage: GuardBreachStage;
let stack: E2eStack;
let breach: OpenGate;

beforeAll(async () => {
  stage = await startGuardBreach({
    nodes: 5,
    alertmanager: true,
    rules: RULES,
    guards: ({ alertmanager }) => [{ name: 'critical alerts', alertmanager: { url: alertmanager, matchers: ['severity="critical"', 'namespace=~"batch|shop"'] }, interval: '1s' }],
  });
  ({ stack, breach } = stage);
}, 300_000);

afterAll(async () => {
  await stage?.close();
});

const firing = async () => ((await fetch(`${stage.alertmanager!.url}/api/v2/alerts?active=true&filter=alertname%3D%22TrainerUnavailable%22`).then((r) => r.json())) as unknown[]).length;

describe('an Alertmanager guard, then Roll back on its breach card', () => {
  it('posts the breach card with the alert and offers Roll back', () => {
    expect(breach.message.text).toContain('Guard "critical alerts" stopped the upgrade of batch');
    expect(blocksJson(breach.message)).toMatch(/🔴 \*critical alerts\*: breached since \d\d:\d\d:\d\d UTC, 1 alert firing: TrainerUnavailable/);
    expect(breach.labels).toEqual(['Resume', 'Roll back to 1.30', 'Force', 'Abort']);
  });

  it('aborts the upgrade, rolls batch back to 1.30, and the alert resolves', async () => {
    expect(await clickRollBack(stack, breach, 'U0REQ')).toMatch(/^Started rolling back batch from 1\.31 to 1\.30 \(job `[^`]+`\)/);
    expect((await until(() => summaryReply(stack.fake, CHANNEL), 'the upgrade summary', 60_000)).text).toMatch(/^Upgrade 1\.30 → 1\.31: \S* ?Aborted/u);
    // The click's thread line goes through the outbox and may follow the summary: wait for it as a reader would.
    expect(await until(() => repliesOf(stack.fake, CHANNEL).some((reply) => reply.text.startsWith('⏪ <@U0REQ> chose Roll back on the breach card: the upgrade was aborted where the guard held it.')), 'the thread to say the abort and the rollback', 60_000)).toBe(true);
    const { summary } = await answerRollbackUntilSummary(stack);
    expect(summary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect((await stack.eksClient().send(new DescribeClusterCommand({ name: 'batch' }))).cluster!.version).toBe('1.30');
    await until(async () => (await firing()) === 0, 'TrainerUnavailable to resolve in Alertmanager', 120_000);
    expect(stack.deniedCalls()).toEqual([]);
  }, 600_000);
});
