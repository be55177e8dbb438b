import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySlackRequest } from '@slack/bolt';
import { LogLevel, WebClient, type WebAPIPlatformError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';

// A bare HTTP "bot" that records exactly what the fake sends and answers as each test tells it to: the wire format
// and Slack's limits (response_url uses and lifetime, trigger_id lifetime, the 3-second ack) without Bolt in between.
const SECRET = 'interactions-secret';
let fake: FakeSlack;
let bot: Server;
let now: number;
let received: Array<{ headers: IncomingHttpHeaders; body: string }>;
let answer: (body: string) => { status?: number; body?: string; delayMs?: number };
const client = () => new WebClient('xoxb-t', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });

beforeEach(async () => {
  now = Date.UTC(2026, 0, 1, 9, 0, 0);
  received = [];
  answer = () => ({});
  bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, body });
      const reply = answer(body);
      setTimeout(() => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  fake = await startFakeSlack({
    signingSecret: SECRET,
    clock: () => now,
    botEventsUrl: `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`,
    channelNames: { C0DEMO: 'platform-ops' },
    userNames: { U0REQ: 'ana' },
    ackTimeoutMs: 300,
  });
});

afterEach(async () => {
  await fake.close();
  bot.closeAllConnections();
  await new Promise((resolve) => bot.close(resolve));
});

const respond = (url: string, message: object) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });

describe('fake Slack interactions on the wire', () => {
  it('sends a slash command form-encoded and v0-signed, with Slack\'s fields', async () => {
    const result = await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(result.status).toBe(200);
    const [request] = received;
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(() => verifySlackRequest({
      signingSecret: SECRET,
      body: request.body,
      headers: {
        'x-slack-signature': String(request.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(request.headers['x-slack-request-timestamp']),
      },
    })).not.toThrow();
    const fields = Object.fromEntries(new URLSearchParams(request.body));
    expect(fields).toMatchObject({
      team_id: 'T0FAKE', channel_id: 'C0DEMO', channel_name: 'platform-ops', user_id: 'U0REQ', user_name: 'ana',
      command: '/eks-upgrade', text: 'start demo --to 1.31', api_app_id: 'A0FAKEAPP', is_enterprise_install: 'false',
      response_url: result.responseUrl, trigger_id: result.triggerId,
    });
  });

  it('lets a response_url be used 5 times, then answers 404; and not at all after 30 minutes', async () => {
    const first = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i += 1) statuses.push((await respond(first.responseUrl, { text: `answer ${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(fake.calls.at(-1)).toMatchObject({ method: 'response_url', status: 404, error: 'used_url' });
    expect(fake.ephemerals('U0REQ')).toHaveLength(5);

    const second = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    now += 30 * 60_000;
    expect((await respond(second.responseUrl, { text: 'too late' })).status).toBe(404);
  });

  it('honours response_type, replace_original and delete_original', async () => {
    const command = await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    await respond(command.responseUrl, { text: 'Working on it…' });
    await respond(command.responseUrl, { text: 'Started: see the thread', replace_original: true });
    await respond(command.responseUrl, { response_type: 'in_channel', text: '<@U0REQ> started an upgrade of demo' });
    expect(fake.ephemerals('U0REQ').map((e) => [e.text, e.versions.length])).toEqual([['Started: see the thread', 2]]);
    expect(fake.messages('C0DEMO').map((m) => [m.text, m.source])).toEqual([['<@U0REQ> started an upgrade of demo', 'response_url']]);

    const ephemeralTs = (await client().chat.postEphemeral({
      channel: 'C0DEMO', user: 'U0REQ', text: 'Really abort?',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'abort:yes', text: { type: 'plain_text', text: 'Yes, abort' } }] }],
    })).message_ts!;
    const click = await fake.clickButton({ userId: 'U0REQ', channelId: 'C0DEMO', messageTs: ephemeralTs, text: 'Yes, abort' });
    const payload = JSON.parse(new URLSearchParams(received.at(-1)!.body).get('payload')!);
    expect(payload.container).toEqual({ type: 'message', message_ts: ephemeralTs, channel_id: 'C0DEMO', is_ephemeral: true });
    expect(payload.message).toBeUndefined();
    expect(payload.actions[0]).toMatchObject({ action_id: 'abort:yes', block_id: expect.stringMatching(/^b\d+$/) });
    await respond(click.responseUrl, { delete_original: true });
    expect(fake.ephemerals('U0REQ').find((e) => e.ts === ephemeralTs)?.deleted).toBe(true);
    expect(fake.renderConversation()).toMatchInlineSnapshot(`
      "> /eks-upgrade start demo --to 1.31  — @U0REQ
      eks-upgrade → @U0REQ (only visible to you) (edited):
        Started: see the thread
      eks-upgrade:
        @U0REQ started an upgrade of demo
      👆 @U0REQ clicked [ Yes, abort ]"
    `);
  });

  it('shows the HTTP answer to a command like Slack does: JSON in_channel posts visibly', async () => {
    answer = () => ({ body: JSON.stringify({ response_type: 'in_channel', text: 'Upgrade queued' }) });
    await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(fake.messages('C0DEMO').map((m) => [m.text, m.source])).toEqual([['Upgrade queued', 'ack']]);
  });

  it('records operation_timeout when the bot acks after Slack gave up, and dispatch_failed for errors', async () => {
    answer = () => ({ delayMs: 600 });
    const slow = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(slow.status).toBe(0);
    expect(slow.body).toBe('operation_timeout');
    expect(slow.ackMs).toBeGreaterThanOrEqual(290);
    answer = () => ({ status: 500 });
    const broken = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(broken.status).toBe(500);
    expect(fake.ephemerals('U0REQ').map((e) => [e.source, e.text])).toEqual([
      ['slack', '/eks-upgrade failed with the error "operation_timeout"'],
      ['slack', '/eks-upgrade failed with the error "dispatch_failed"'],
    ]);
    fake.setBotEventsUrl('http://127.0.0.1:1/slack/events');
    expect((await fake.sendSlashCommand({ text: 'x', userId: 'U0REQ', channelId: 'C0DEMO' })).body).toBe('dispatch_failed');
  });

  it('accepts a trigger_id for views.open only once and only within 3 seconds', async () => {
    const view = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'Force' }, blocks: [] };
    const fresh = await fake.sendSlashCommand({ text: 'force', userId: 'U0REQ', channelId: 'C0DEMO' });
    const opened = await client().views.open({ trigger_id: fresh.triggerId, view });
    expect(opened.view?.id).toMatch(/^V/);
    const reused = await client().views.open({ trigger_id: fresh.triggerId, view }).catch((e: WebAPIPlatformError) => e.data.error);
    expect(reused).toBe('expired_trigger_id');
    const late = await fake.sendSlashCommand({ text: 'force', userId: 'U0REQ', channelId: 'C0DEMO' });
    now += 3_000;
    const expired = await client().views.open({ trigger_id: late.triggerId, view }).catch((e: WebAPIPlatformError) => e.data.error);
    expect(expired).toBe('expired_trigger_id');
    expect(fake.modals()).toHaveLength(1);
    const updated = await client().views.update({ view_id: opened.view!.id!, view: { ...view, title: { type: 'plain_text', text: 'Forced' } } });
    expect(fake.modals()[0].view).toMatchObject({ title: { text: 'Forced' } });
    expect(updated.view?.id).toBe(opened.view?.id);
  });

  it('sends nothing when the user cancels a confirm dialog, and refuses clicks on unknown messages', async () => {
    const posted = await client().chat.postMessage({
      channel: 'C0DEMO', text: 'Force?',
      blocks: [{ type: 'actions', elements: [{
        type: 'button', action_id: 'gate:force', text: { type: 'plain_text', text: 'Force' },
        confirm: { title: { type: 'plain_text', text: 'Sure?' }, text: { type: 'plain_text', text: 'Evicts pods' }, confirm: { type: 'plain_text', text: 'Force' }, deny: { type: 'plain_text', text: 'Cancel' } },
      }] }],
    });
    const cancelled = await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: posted.ts!, actionId: 'gate:force', confirm: false });
    expect(cancelled.body).toBe('cancelled');
    expect(received).toHaveLength(0);
    await expect(fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: '1.000001', text: 'Force' })).rejects.toThrow(/no message 1.000001/);
  });

  it('can fail response_url posts on demand', async () => {
    const command = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    fake.failNext('response_url', { status: 500 });
    expect((await respond(command.responseUrl, { text: 'lost' })).status).toBe(500);
    expect((await respond(command.responseUrl, { text: 'delivered' })).status).toBe(200);
    expect(fake.ephemerals('U0REQ').map((e) => e.text)).toEqual(['delivered']);
  });
});
