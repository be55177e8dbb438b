import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSlashCommandBody, signSlackRequest } from '@eks-upgrade-bot/sim';
import { SIGNING_SECRET, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * Requests Slack would never send are refused with a 4xx before anything runs: a replayed signature, a body over the
 * size limit, a content type Slack does not use. (Forged and stale signatures: slack-app-commands.test.ts.)
 */
let harness: SlackHarness;
beforeEach(async () => {
  harness = await startSlackHarness();
});
afterEach(async () => harness.close());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function commandBody(text: string, responseId: string): string {
  return buildSlashCommandBody({
    teamId: 'T0FAKE', teamDomain: 'fake', apiAppId: 'A0FAKEAPP', channelId: 'C0DEMO', channelName: 'demo',
    userId: 'U0REQ', userName: 'req', command: '/eks-upgrade', text,
    responseUrl: `${harness.fake.url}/response/${responseId}`, triggerId: '1.2.3',
  });
}

describe('requests Slack would not send', () => {
  it('a replayed request (same signature) is refused with 401 and answers once', async () => {
    const body = commandBody('help', 'replay');
    const headers = { ...FORM, ...signSlackRequest(SIGNING_SECRET, body) };
    const first = await harness.fake.sendRaw({ body, headers });
    const replay = await harness.fake.sendRaw({ body, headers });
    // help is answered in the ack's own body: the first request gets it, the replay only the refusal.
    expect([first.status, replay.status]).toEqual([200, 401]);
    expect(first.body).toContain('subcommands');
    expect(replay.body).not.toContain('subcommands');
    // A later, genuine command is handled; by then the replay would have been handled too, had it run.
    const handled = () => harness.logLines.filter((line) => line.msg === 'slash command handled' && line.subcommand === 'help');
    await harness.fake.sendSlashCommand({ text: 'help start', userId: 'U0REQ', channelId: 'C0DEMO' });
    await expect.poll(() => handled().length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(handled()).toHaveLength(2);
    expect(harness.fake.ephemerals('U0REQ').map((e) => e.text)).toEqual([expect.stringContaining('start')]);
    expect(harness.fake.calls.filter((call) => call.method === 'response_url')).toHaveLength(0);
    expect(harness.logLines.filter((line) => line.audit === 'request-refused').map((line) => line.reason)).toEqual(['replay']);
  });

  it('a body over the size limit gets 413 and a wrong content type 415; neither reaches a handler', async () => {
    const huge = commandBody(`status ${'x'.repeat(300 * 1024)}`, 'huge');
    const tooLarge = await harness.fake.sendRaw({ body: huge, headers: { ...FORM, ...signSlackRequest(SIGNING_SECRET, huge) } });
    const body = commandBody('start demo --to 1.31', 'type');
    const wrongType = await harness.fake.sendRaw({ body, headers: { 'content-type': 'text/plain', ...signSlackRequest(SIGNING_SECRET, body) } });
    expect([tooLarge.status, wrongType.status]).toEqual([413, 415]);
    // Both refusals are logged; a command after them is answered, and it is the only thing that ran.
    await harness.fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length === 1);
    expect(harness.logLines.filter((line) => line.audit === 'request-refused').map((line) => line.reason)).toEqual(['too-large', 'content-type']);
    expect(harness.control.calls).toEqual([]);
  });
});
