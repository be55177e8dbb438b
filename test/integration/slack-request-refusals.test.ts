import { request } from 'node:http';
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

/** A POST with the path exactly as written (fetch would normalise `/slack/./events` before sending it). */
function postRawPath(eventsUrl: string, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(eventsUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

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

  it('an unsigned or forged command is refused with 401 on every path Bolt reads as its events endpoint', async () => {
    const body = commandBody('start demo --to 1.31', 'forged');
    const forged = { ...FORM, ...signSlackRequest('not-the-signing-secret', body) };
    const paths = ['/slack/events', '/slack/./events', '/x/../slack/events', '/slack/events?x=1', '/slack/events#x', '/slack//events/../events'];
    const answers = [];
    for (const path of paths) answers.push((await postRawPath(harness.eventsUrl, path, body, forged)).status);
    const unsigned = await postRawPath(harness.eventsUrl, '/slack/./events', body, FORM);
    // Bolt's receiver routes by `new URL(req.url, 'http://localhost').pathname`: what it reads as its endpoint is
    // refused as forged (401), anything else is its 404. Nothing forged is ever handled.
    const boltReadsAsEvents = (path: string) => new URL(path, 'http://localhost').pathname === '/slack/events';
    expect(answers).toEqual(paths.map((path) => (boltReadsAsEvents(path) ? 401 : 404)));
    expect(answers.filter((status) => status === 401)).toHaveLength(5);
    expect(unsigned.status).toBe(401);
    expect(harness.control.calls).toEqual([]);
    expect(harness.fake.ephemerals('U0REQ')).toEqual([]);
    // The same command, signed, on a path that is not plain: handled (start is refused in the thread or answered, not 401).
    const genuine = commandBody('help', 'genuine');
    expect((await postRawPath(harness.eventsUrl, '/slack/./events', genuine, { ...FORM, ...signSlackRequest(SIGNING_SECRET, genuine) })).status).toBe(200);
  });
});
