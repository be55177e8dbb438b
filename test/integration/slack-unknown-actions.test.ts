import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ephemeralTexts, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * Buttons whose action id this version does not answer (cards posted by an older version, junk) are acknowledged at
 * once and answered with a sentence, instead of Slack's 3-second wait and failed-button mark.
 */
let harness: SlackHarness;
beforeEach(async () => {
  harness = await startSlackHarness();
});
afterEach(async () => harness.close());

async function postCardWithButton(actionId: string): Promise<string> {
  const posted = await harness.slack.client.chat.postMessage({
    channel: 'C0DEMO',
    text: 'A card from an older version',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: actionId, text: { type: 'plain_text', text: 'Approve' }, value: 'x' }] }],
  });
  return posted.ts!;
}

describe('unknown buttons', () => {
  it('a click on a button this version does not know is acked at once and answered privately', async () => {
    const ts = await postCardWithButton('legacy:approve-v0');
    const click = await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts, actionId: 'legacy:approve-v0' });
    expect(click.status).toBe(200);
    expect(click.ackMs).toBeLessThan(2500);
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'));
    expect(reply.text).toMatch(/^This button belongs to a card this version of the bot no longer answers.*nothing was changed/);
    expect(harness.control.calls).toEqual([]);
    expect(harness.logLines).toContainEqual(expect.objectContaining({ audit: 'unknown-action', user: 'U0APP', actionId: 'legacy:approve-v0' }));
  });

  it('a known button gets only its own answer, not the fallback sentence', async () => {
    const ts = await postCardWithButton('job:pause');
    await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts, actionId: 'job:pause' });
    // value "x" is no job id: the job-control listener logs it and tells nobody; the fallback must stay silent too.
    await harness.fake.waitFor(() => harness.logLines.some((line) => String(line.msg).includes('without a readable job id')));
    const ts2 = await postCardWithButton('legacy:other');
    await harness.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: ts2, actionId: 'legacy:other' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0);
    // The only ephemeral is the fallback's answer to the unknown button, posted after the known click was handled.
    expect(ephemeralTexts(harness.fake, 'U0APP')).toHaveLength(1);
    expect(harness.logLines.filter((line) => line.audit === 'unknown-action').map((line) => line.actionId)).toEqual(['legacy:other']);
  });
});
