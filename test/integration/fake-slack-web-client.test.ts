import { LogLevel, WebClient, WebClientEvent, type WebAPIPlatformError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';

// The real @slack/web-api client against the fake: what the bot's WebClient (and Bolt's app.client) will see.
let fake: FakeSlack;
let client: WebClient;

const quickRetries = { retries: 4, factor: 1, minTimeout: 20, maxTimeout: 50, randomize: false };

beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'test-secret', userGroups: { S0ONCALL: ['U0APP', 'U0SRE'] } });
  client = new WebClient('xoxb-test-token', { slackApiUrl: fake.apiUrl, retryConfig: quickRetries, logLevel: LogLevel.ERROR });
});

afterEach(async () => {
  await fake.close();
});

const platformError = (promise: Promise<unknown>) =>
  promise.then(() => 'resolved', (error: WebAPIPlatformError) => error.data?.error ?? String(error));

describe('fake Slack Web API through the real WebClient', () => {
  it('records a thread: parent card, replies, an edit, a reaction and a Markdown file uploaded into the thread', async () => {
    const parent = await client.chat.postMessage({
      channel: 'C0DEMO',
      text: 'Upgrade demo to 1.31',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Upgrade demo 1.30 → 1.31' } },
        { type: 'section', text: { type: 'mrkdwn', text: '*Step:* preflight' } },
      ],
    });
    expect(parent.ok).toBe(true);
    expect(parent.ts).toMatch(/^\d{10}\.\d{6}$/);
    const reply = await client.chat.postMessage({ channel: 'C0DEMO', thread_ts: parent.ts, text: 'Preflight passed in 2s' });
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));

    const updated = await client.chat.update({
      channel: 'C0DEMO', ts: parent.ts!, text: 'Upgrade demo: done',
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Upgrade demo 1.30 → 1.31' } }, { type: 'section', text: { type: 'mrkdwn', text: '*Step:* done' } }],
    });
    expect(updated.ts).toBe(parent.ts);
    await client.reactions.add({ channel: 'C0DEMO', timestamp: parent.ts!, name: 'white_check_mark' });

    const markdown = '# Timeline\n\n- 12:00 preflight\n- 12:01 gate\n';
    const upload = await client.filesUploadV2({
      channel_id: 'C0DEMO', thread_ts: parent.ts!, filename: 'timeline-demo.md', title: 'Timeline', content: markdown,
    });
    expect(upload.ok).toBe(true);

    const [card] = fake.messages('C0DEMO');
    expect(card.ts).toBe(parent.ts);
    expect(card.text).toBe('Upgrade demo: done');
    expect(card.versions).toHaveLength(2);
    expect(card.reactions).toEqual(['white_check_mark']);
    expect(card.replies.map((r) => r.text)).toEqual(['Preflight passed in 2s', '']);
    const [file] = fake.files();
    expect(file).toMatchObject({ name: 'timeline-demo.md', title: 'Timeline', channel: 'C0DEMO', threadTs: parent.ts, text: markdown, lines: 4 });
    expect(card.replies[1].files.map((f) => f.id)).toEqual([file.id]);
    // The three-step upload really happened over HTTP, in order.
    expect(fake.calls.map((c) => c.method)).toEqual([
      'chat.postMessage', 'chat.postMessage', 'chat.update', 'reactions.add',
      'files.getUploadURLExternal', 'files.upload', 'files.completeUploadExternal',
    ]);
    expect(fake.calls[0].body.blocks).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'header' })]));
    expect(fake.calls.every((call) => !('token' in call.body))).toBe(true);
    const downloaded = await fetch(`${fake.url}/files/${file.id}/timeline-demo.md`).then((r) => r.text());
    expect(downloaded).toBe(markdown);

    expect(fake.renderConversation()).toMatchInlineSnapshot(`
      "eks-upgrade (edited):
        *UPGRADE DEMO 1.30 → 1.31*
        *Step:* done
        :white_check_mark:
        │ eks-upgrade:
        │   Preflight passed in 2s
        │ eks-upgrade:
        │   📎 timeline-demo.md (4 lines)"
    `);
  });

  it('survives a 429 with Retry-After: the client waits, retries, and the message is posted once', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const rateLimited: number[] = [];
    client.on(WebClientEvent.RATE_LIMITED, (retryAfter: number) => rateLimited.push(retryAfter));
    const started = Date.now();
    const result = await client.chat.postMessage({ channel: 'C0DEMO', text: 'Control plane update started' });
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rateLimited).toEqual([1]);
    expect(fake.calls.map((c) => [c.method, c.status, c.error])).toEqual([
      ['chat.postMessage', 429, 'ratelimited'],
      ['chat.postMessage', 200, undefined],
    ]);
    expect(fake.messages('C0DEMO').map((m) => m.text)).toEqual(['Control plane update started']);
  });

  it('answers 500s during an outage until it ends, then lets the retried call through', async () => {
    const posted = await client.chat.postMessage({ channel: 'C0DEMO', text: 'v1' });
    fake.setOutage({ methods: ['chat.update'], status: 500, until: Date.now() + 60 });
    await client.chat.update({ channel: 'C0DEMO', ts: posted.ts!, text: 'v2' });
    const updates = fake.calls.filter((c) => c.method === 'chat.update');
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.at(-1)).toMatchObject({ status: 200, ok: true });
    expect(updates.slice(0, -1).every((c) => c.status === 500)).toBe(true);
    expect(fake.message('C0DEMO', posted.ts!)?.text).toBe('v2');
    expect(fake.okCalls('chat.update')).toHaveLength(1);
  });

  it('can lose the answer to a post that succeeded, so a retrying client posts a duplicate', async () => {
    fake.failNext('chat.postMessage', { status: 500, applyFirst: true });
    await client.chat.postMessage({ channel: 'C0DEMO', text: 'Step started' });
    expect(fake.messages('C0DEMO').map((m) => m.text)).toEqual(['Step started', 'Step started']);
  });

  it('can drop the connection after the post took effect: the client sees a request error, the post is there', async () => {
    const once = new WebClient('xoxb-test-token', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
    fake.failNext('chat.postMessage', { disconnect: true, applyFirst: true });
    const failed = await once.chat.postMessage({ channel: 'C0DEMO', text: 'Step started' }).catch((error: { code?: string }) => error);
    expect(failed).toMatchObject({ code: 'slack_webapi_request_error' });
    expect(fake.calls.at(-1)).toMatchObject({ method: 'chat.postMessage', status: 0, ok: false, error: 'disconnected' });
    expect(fake.messages('C0DEMO').map((m) => m.text)).toEqual(['Step started']);
  });

  it('reads a thread back with its message metadata (conversations.replies / history, include_all_metadata)', async () => {
    const metadata = { event_type: 'eks_upgrade_outbox', event_payload: { post_id: 'e-1', key: 'step:preflight:started' } };
    const parent = await client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade demo', metadata: { event_type: 'eks_upgrade_outbox', event_payload: { post_id: 'p-1', key: 'open' } } });
    const reply = await client.chat.postMessage({ channel: 'C0DEMO', thread_ts: parent.ts, text: 'Started: Preflight', metadata });
    await client.chat.postMessage({ channel: 'C0DEMO', thread_ts: parent.ts, text: 'Finished: Preflight' });

    const thread = await client.conversations.replies({ channel: 'C0DEMO', ts: parent.ts!, include_all_metadata: true });
    expect(thread.messages?.map((m) => [m.text, m.ts])).toEqual([
      ['Upgrade demo', parent.ts],
      ['Started: Preflight', reply.ts],
      ['Finished: Preflight', expect.any(String)],
    ]);
    expect(thread.messages?.[1].metadata).toEqual(metadata);
    expect(thread.has_more).toBe(false);
    const plain = await client.conversations.replies({ channel: 'C0DEMO', ts: parent.ts! });
    expect(plain.messages?.[1].metadata).toBeUndefined();

    // The client's own paginator follows next_cursor to the end.
    const pages: string[][] = [];
    for await (const page of client.paginate('conversations.replies', { channel: 'C0DEMO', ts: parent.ts!, limit: 2 })) {
      pages.push(((page as { messages?: Array<{ text: string }> }).messages ?? []).map((m) => m.text));
    }
    expect(pages).toEqual([['Upgrade demo', 'Started: Preflight'], ['Finished: Preflight']]);

    const history = await client.conversations.history({ channel: 'C0DEMO', include_all_metadata: true });
    expect(history.messages?.map((m) => [m.text, m.reply_count, (m.metadata as { event_payload?: { post_id?: string } })?.event_payload?.post_id]))
      .toEqual([['Upgrade demo', 2, 'p-1']]);
  });

  it('returns platform errors (not retried) for injected errors and misuse, like Slack', async () => {
    fake.failNext('chat.postMessage', { error: 'ratelimited' });
    expect(await platformError(client.chat.postMessage({ channel: 'C0DEMO', text: 'x' }))).toBe('ratelimited');
    expect(fake.calls).toHaveLength(1);

    const ephemeral = await client.chat.postEphemeral({ channel: 'C0DEMO', user: 'U0REQ', text: 'only you' });
    expect(ephemeral.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(await platformError(client.chat.update({ channel: 'C0DEMO', ts: ephemeral.message_ts!, text: 'edit' }))).toBe('message_not_found');
    expect(await platformError(client.chat.update({ channel: 'C0DEMO', ts: '1.000001', text: 'edit' }))).toBe('message_not_found');
    expect(await platformError(client.chat.postMessage({ channel: 'C0DEMO', thread_ts: '1.000001', text: 'x' }))).toBe('thread_not_found');
    expect(await platformError(client.chat.postMessage({ channel: 'C0DEMO', text: '' }))).toBe('no_text');
    expect(await platformError(client.views.open({ trigger_id: '123.456.abc', view: { type: 'modal', title: { type: 'plain_text', text: 'Force' }, blocks: [] } }))).toBe('expired_trigger_id');
    expect(await platformError(client.apiCall('chat.teleport', {}))).toBe('unknown_method');

    const invalid = await client.chat.postMessage({ channel: 'C0DEMO', text: 'x', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(200) } }] })
      .catch((error: WebAPIPlatformError) => error.data);
    expect(invalid).toMatchObject({ ok: false, error: 'invalid_blocks', response_metadata: { messages: ['[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]'] } });

    const posted = await client.chat.postMessage({ channel: 'C0DEMO', text: 'to delete' });
    await client.chat.delete({ channel: 'C0DEMO', ts: posted.ts! });
    expect(await platformError(client.chat.update({ channel: 'C0DEMO', ts: posted.ts!, text: 'edit' }))).toBe('message_not_found');
  });

  it('requires a bot or user token', async () => {
    const anonymous = new WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
    expect(await platformError(anonymous.auth.test())).toBe('not_authed');
    const wrong = new WebClient('xapp-1-app-level', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });
    expect(await platformError(wrong.chat.postMessage({ channel: 'C1', text: 'x' }))).toBe('invalid_auth');
    expect(fake.messages()).toHaveLength(0);
  });

  it('answers directory lookups: auth.test, user groups, users and channels', async () => {
    expect(await client.auth.test()).toMatchObject({ ok: true, user_id: 'U0BOT', team_id: 'T0FAKE', bot_id: 'B0BOT' });
    expect((await client.usergroups.users.list({ usergroup: 'S0ONCALL' })).users).toEqual(['U0APP', 'U0SRE']);
    fake.setUserGroup('S0NEW', ['U9']);
    expect((await client.usergroups.users.list({ usergroup: 'S0NEW' })).users).toEqual(['U9']);
    expect(await platformError(client.usergroups.users.list({ usergroup: 'S0NONE' }))).toBe('no_such_subteam');
    expect((await client.users.info({ user: 'U0APP' })).user).toMatchObject({ id: 'U0APP', is_bot: false });
    expect((await client.conversations.info({ channel: 'C0DEMO' })).channel).toMatchObject({ id: 'C0DEMO', is_channel: true });
  });

  it('wakes waitFor when the awaited post arrives, and explains a timeout with the conversation so far', async () => {
    const waiting = fake.waitFor((f) => f.messages('C0DEMO').find((m) => m.text === 'second'), { timeoutMs: 2000 });
    await client.chat.postMessage({ channel: 'C0DEMO', text: 'first' });
    setTimeout(() => void client.chat.postMessage({ channel: 'C0DEMO', text: 'second' }), 20);
    expect((await waiting).text).toBe('second');
    await expect(fake.waitFor((f) => f.messages().length > 5, { timeoutMs: 50 })).rejects.toThrow(
      /not met within 50 ms; conversation so far:\neks-upgrade:\n {2}first/,
    );
  });
});
