import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eStack } from '../support/e2e-stack.js';
import { answerGate, blocksJson, openGateOf, openGates, repliesOf, summaryReply, type OpenGate } from '../support/e2e-thread.js';
import { GUARD_CHANNEL as CHANNEL, startGuardBreach, type GuardBreachStage } from '../support/guard-breach-stack.js';
import { simControl } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';

/**
 * Issue 29 through Slack, the breach card while the hold lasts: a Roll back by someone who may not start rollbacks
 * is refused in a sentence and leaves the upgrade held; when the guard recovers (the trainer's fault is lifted) the
 * breach card itself is edited in place to say so, its buttons still live; Resume then carries the upgrade to 1.31.
 */
let stage: GuardBreachStage;
let stack: E2eStack;
let breach: OpenGate;

beforeAll(async () => {
  stage = await startGuardBreach({ nodes: 5 });
  ({ stack, breach } = stage);
}, 300_000);

afterAll(async () => {
  await stage?.close();
});

const card = () => stack.fake.message(CHANNEL, breach.message.ts)!;

describe('the breach card while the guard holds the upgrade', () => {
  it('refuses Roll back from someone who is not a requester, in a sentence, and the upgrade stays held', async () => {
    const seen = stack.fake.ephemerals('U0NOT').length;
    expect((await stack.fake.clickButton({ userId: 'U0NOT', channelId: CHANNEL, messageTs: breach.message.ts, actionId: 'guard:rollback' })).status).toBe(200);
    const answer = await until(() => stack.fake.ephemerals('U0NOT')[seen], 'the answer to the click', 60_000);
    expect(answer.text).toBe('You are not among the requesters of batch, so you cannot start its rollbacks. Requesters: <@U0REQ>.');
    expect(openGateOf(card())?.labels).toEqual(['Resume', 'Roll back to 1.30', 'Force', 'Abort']);
    expect(await stack.acceptedCalls('UpdateClusterVersion')).toHaveLength(1);
    expect(repliesOf(stack.fake, CHANNEL).some((reply) => /Aborted/.test(reply.text))).toBe(false);
  });

  it('says on the card itself when the guard recovers, and keeps its buttons', async () => {
    await simControl(stack.sim, 'DELETE', 'workloads/fail', { namespace: 'batch', name: 'trainer' });
    const edited = await until(() => (/🟢 Recovered at \d\d:\d\d:\d\d UTC: every guard that stopped the upgrade is healthy again; Resume carries on\./.test(blocksJson(card())) ? card() : undefined), 'the breach card edited to say the guard recovered', 120_000);
    expect(blocksJson(edited)).toMatch(/🟢 \*trainer available\*: healthy, 1 \(breached when &lt; 1\)/);
    // Edited in place, at the same revision: the buttons the approvers already see still answer the card.
    expect(openGateOf(edited)).toMatchObject({ gateId: breach.gateId, revision: breach.revision, labels: ['Resume', 'Roll back to 1.30', 'Force', 'Abort'] });
    expect(repliesOf(stack.fake, CHANNEL).some((reply) => /Guard "trainer available" recovered at \d\d:\d\d:\d\d UTC: 1 \(breached when &lt; 1\)\. Resume on the breach card carries on\./.test(reply.text))).toBe(true);
    expect(openGates(stack.fake, CHANNEL).filter((gate) => gate.gateId === breach.gateId)).toHaveLength(1);
  }, 150_000);

  it('resumes on Resume and finishes the upgrade at 1.31', async () => {
    await answerGate(stack.fake, CHANNEL, openGateOf(card())!, { action: 'continue' }, 'U0APP');
    await until(() => repliesOf(stack.fake, CHANNEL).find((reply) => reply.text.includes('Resumed by <@U0APP>: every guard is healthy again.')), 'the resume in the thread', 60_000);
    expect(blocksJson(card())).toMatch(/✅ Resume chosen by <@U0APP> at \d\d:\d\d:\d\d UTC/);
    const summary = await until(() => summaryReply(stack.fake, CHANNEL), 'the upgrade summary', 300_000);
    expect(summary.text).toMatch(/^Upgrade 1\.30 → 1\.31: \S* ?Succeeded/u);
    expect(stack.deniedCalls()).toEqual([]);
  }, 320_000);
});
