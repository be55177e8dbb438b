import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { ephemeralTexts, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * A click whose handling fails after the ack (here: Slack refuses to open the dialog the click asked for) is answered
 * privately with the handler's sentence and logged with the click's fields, and nothing reaches the engine: the
 * failure path every handler shares in src/slack/actions/define-action.ts. demo's approvers include U0APP.
 */
let harness: SlackHarness;
beforeEach(async () => {
  harness = await startSlackHarness();
});
afterEach(async () => harness.close());

describe('a click whose handling fails', () => {
  it('Force whose reason dialog Slack will not open: the approver is told, the gate stays unanswered', async () => {
    const parent = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade of demo 1.30 → 1.31' });
    const job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', thread: { channel: 'C0DEMO', ts: parent.ts! } });
    const gate: GateModel = { jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, title: 'Upgrade the control plane of demo to 1.31?', details: [], actions: ['continue', 'force', 'abort'] };
    harness.control.openGate(job.jobId, gate.gateId, 1, gate.title);
    const card = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', thread_ts: parent.ts!, ...renderGateCard(gate) });

    harness.fake.failNext('views.open', { error: 'expired_trigger_id' });
    const click = await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: card.ts!, actionId: 'gate:force' });
    expect(click.status).toBe(200);
    const [told] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'), { timeoutMs: 10_000 });
    expect(told.text).toBe('The bot could not handle your click (an internal error, now in its log). If the card still shows its buttons, try again in a moment.');
    expect(told.threadTs).toBe(parent.ts);
    expect(harness.fake.modals()).toEqual([]);
    expect(harness.control.mutations()).toEqual([]);
    expect(harness.logLines).toContainEqual(
      expect.objectContaining({ level: 50, msg: 'handling a gate click failed', audit: 'gate', action: 'force', user: 'U0APP', jobId: job.jobId, gateId: gate.gateId }),
    );
    expect(ephemeralTexts(harness.fake, 'U0APP')).toHaveLength(1);
  });
});
