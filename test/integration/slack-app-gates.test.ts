import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import type { JobSummary } from '../../src/ports/upgrade-control.js';
import { ephemeralTexts, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * Gate and job-control buttons through the real Bolt app, with cards rendered by the real gate-card renderer and
 * clicks signed by the fake Slack. demo's approvers: U0APP, U0REQ and group S0ONCALL (U0ONCALL); two-person rule on;
 * the job was requested by U0REQ.
 */
let harness: SlackHarness;
let job: JobSummary;
let gate: GateModel;

async function postGateCard(model: GateModel): Promise<string> {
  const result = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', thread_ts: job.thread.ts, ...renderGateCard(model) });
  return result.ts!;
}

const answerCalls = () => harness.control.calls.filter((call) => call.method === 'answerGate');

beforeEach(async () => {
  harness = await startSlackHarness();
  const parent = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade of demo 1.30 → 1.31' });
  job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', thread: { channel: 'C0DEMO', ts: parent.ts! } });
  gate = { jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, title: 'Upgrade the control plane of demo to 1.31?', details: [], actions: ['continue', 'force', 'abort'] };
  harness.control.openGate(job.jobId, gate.gateId, 1, gate.title);
});
afterEach(async () => harness.close());

describe('gate buttons', () => {
  it('a click from someone who is not an approver is refused privately, logged, and changes nothing', async () => {
    const ts = await postGateCard(gate);
    const click = await harness.fake.clickButton({ userId: 'U0PLAT', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:continue' });
    expect(click.status).toBe(200);
    const [refusal] = await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length > 0 && fake.ephemerals('U0PLAT'));
    // demo follows the two-person rule and U0REQ started the job: U0REQ is not offered as someone who may answer (issue 25).
    expect(refusal.text).toBe('Only the approvers of demo may answer this gate: <@U0APP>, <!subteam^S0ONCALL>.');
    expect(refusal.threadTs).toBe(job.thread.ts); // shown in the thread, next to the card
    expect(answerCalls()).toEqual([]);
    expect(harness.logLines).toContainEqual(
      expect.objectContaining({ level: 40, audit: 'gate', user: 'U0PLAT', action: 'continue', jobId: job.jobId, gateId: gate.gateId, allowed: false }),
    );
  });

  it("an approver's click answers the gate once; a double click and a second approver are told it is already answered", async () => {
    const ts = await postGateCard(gate);
    const first = await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:continue' });
    expect(first.ackMs).toBeLessThan(1000);
    await harness.fake.waitFor(() => answerCalls().length === 1);
    expect(answerCalls()[0].args).toEqual([{ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' }]);

    await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:continue' });
    await harness.fake.clickButton({ userId: 'U0ONCALL', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:abort' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length === 1 && fake.ephemerals('U0ONCALL').length === 1);
    expect(ephemeralTexts(harness.fake, 'U0APP')[0]).toMatch(/^Already approved by <@U0APP> at \d\d:\d\d:\d\d UTC; nothing was changed\.$/);
    expect(ephemeralTexts(harness.fake, 'U0ONCALL')[0]).toMatch(/^Already approved by <@U0APP>/);
    expect(harness.control.calls.filter((call) => call.method === 'answerGate').length).toBe(3);
    expect((await harness.control.getJob(job.jobId))?.state).toBe('running'); // not aborted by the late click
  });

  it('two-person rule: the requester cannot approve their own upgrade', async () => {
    const ts = await postGateCard(gate);
    await harness.fake.clickButton({ userId: 'U0REQ', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:continue' });
    const [refusal] = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0 && fake.ephemerals('U0REQ'));
    expect(refusal.text).toMatch(/demo follows the two-person rule: you started this upgrade, so another approver must answer its gates/);
    expect(answerCalls()).toEqual([]);
  });

  it('a click on an older revision of the card is stale', async () => {
    const ts = await postGateCard(gate);
    harness.control.openGate(job.jobId, gate.gateId, 2, gate.title);
    await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:continue' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'));
    expect(reply.text).toMatch(/This card is out of date/);
    expect((await harness.control.getJob(job.jobId))?.openGate?.revision).toBe(2);
  });
});

describe('Force', () => {
  it('opens a reason dialog, refuses a too-short reason in the dialog, then forces with the reason', async () => {
    const ts = await postGateCard(gate);
    await harness.fake.clickButton({ userId: 'U0ONCALL', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:force' });
    const [modal] = await harness.fake.waitFor((fake) => fake.modals().length > 0 && fake.modals());
    expect(modal.view.callback_id).toBe('force-reason');
    expect(JSON.parse(String(modal.view.private_metadata))).toEqual({ jobId: job.jobId, gateId: gate.gateId, revision: 1, channel: 'C0DEMO', threadTs: job.thread.ts });

    const short = await harness.fake.submitView({ userId: 'U0ONCALL', callbackId: 'force-reason', values: { reason: 'because' } });
    expect(short.errors).toEqual({ reason: expect.stringMatching(/at least 10 characters/) });
    expect(answerCalls()).toEqual([]);

    const reason = 'orders can lose a replica for five minutes; agreed in #orders';
    const ok = await harness.fake.submitView({ userId: 'U0ONCALL', callbackId: 'force-reason', values: { reason } });
    expect(ok.status).toBe(200);
    expect(ok.errors).toBeUndefined();
    await harness.fake.waitFor(() => answerCalls().length === 1);
    expect(answerCalls()[0].args).toEqual([{ jobId: job.jobId, gateId: gate.gateId, revision: 1, action: 'force', userId: 'U0ONCALL', reason }]);
    expect(harness.logLines).toContainEqual(expect.objectContaining({ audit: 'gate', action: 'force', user: 'U0ONCALL', reason, outcome: 'accepted' }));
  });

  it('is refused without a dialog for someone who may not approve', async () => {
    const ts = await postGateCard(gate);
    await harness.fake.clickButton({ userId: 'U0PLAT', channelId: 'C0DEMO', messageTs: ts, actionId: 'gate:force' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length > 0);
    expect(harness.fake.modals()).toEqual([]);
    expect(answerCalls()).toEqual([]);
  });
});

describe('job control buttons', () => {
  it('Pause from an approver pauses the job and says so; from anyone else it is refused', async () => {
    const card = await harness.slack.client.chat.postMessage({
      channel: 'C0DEMO',
      text: 'status card',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'job:pause', text: { type: 'plain_text', text: 'Pause' }, value: JSON.stringify({ jobId: job.jobId }) }] }],
    });
    await harness.fake.clickButton({ userId: 'U0PLAT', channelId: 'C0DEMO', messageTs: card.ts!, actionId: 'job:pause' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length > 0);
    expect(ephemeralTexts(harness.fake, 'U0PLAT')[0]).toMatch(/Only the approvers of demo may pause/);
    await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: card.ts!, actionId: 'job:pause' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0);
    expect(ephemeralTexts(harness.fake, 'U0APP')[0]).toBe('Paused the upgrade of demo (1.30 → 1.31).');
    expect(harness.control.mutations()).toEqual([{ method: 'pause', args: [job.jobId, 'U0APP'] }]);
  });
});
