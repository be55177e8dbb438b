import { LogLevel, WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';

/**
 * The fake Slack's client side, as the playground page uses it: a server-sent-events feed of what users see
 * (posts, chat.update edits, ephemerals, modals) read here with fetch, the bot's side driven with the real WebClient.
 */
let fake: FakeSlack;
let client: WebClient;
let feeds: AbortController[];

beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'test-secret', userNames: { U0ALICE: 'alice' }, channelNames: { C0OPS: 'platform-ops' } });
  client = new WebClient('xoxb-test-token', { slackApiUrl: fake.apiUrl, logLevel: LogLevel.ERROR });
  feeds = [];
});

afterEach(async () => {
  for (const feed of feeds) feed.abort();
  await fake.close();
});

/** Opens the feed; `next(match)` resolves with (and takes) the first event, in arrival order, that matches. */
async function openFeed() {
  const abort = new AbortController();
  feeds.push(abort);
  const response = await fetch(`${fake.url}/client/feed`, { signal: abort.signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const queue: Array<{ event: string; data: any }> = [];
  let buffer = '';
  return {
    async next(match: (e: { event: string; data: any }) => boolean) {
      for (;;) {
        const index = queue.findIndex(match);
        if (index >= 0) return queue.splice(index, 1)[0];
        const { value, done } = await reader.read();
        if (done) throw new Error('the feed ended');
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(chunk)?.[1];
          const data = /^data: (.+)$/m.exec(chunk)?.[1];
          if (event && data) queue.push({ event, data: JSON.parse(data) });
        }
      }
    },
  };
}

async function act(action: string, body: unknown) {
  const response = await fetch(`${fake.url}/client/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

describe('fake Slack client feed', { timeout: 15_000 }, () => {
  it('tells the workspace, then each post, each edit, ephemerals and what already happened before it connected', async () => {
    const first = await client.chat.postMessage({ channel: 'C0OPS', text: 'status card', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Queued*' } }] });
    const feed = await openFeed();
    const workspace = await feed.next((e) => e.event === 'workspace');
    expect(workspace.data).toMatchObject({ botName: 'eks-upgrade', users: { U0ALICE: 'alice' }, channels: { C0OPS: 'platform-ops' } });
    const backlog = await feed.next((e) => e.event === 'message');
    expect(backlog.data).toMatchObject({ ts: first.ts, text: 'status card', edited: false, replyCount: 0 });

    const reply = await client.chat.postMessage({ channel: 'C0OPS', thread_ts: first.ts, text: 'gate' });
    const posted = await feed.next((e) => e.event === 'message' && e.data.ts === reply.ts);
    expect(posted.data).toMatchObject({ threadTs: first.ts, text: 'gate' });
    // The parent is sent again with its new reply count, as Slack's "1 reply" link changes.
    expect((await feed.next((e) => e.event === 'message' && e.data.ts === first.ts)).data.replyCount).toBe(1);

    await client.chat.update({ channel: 'C0OPS', ts: first.ts!, text: 'status card', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Succeeded*' } }] });
    const edited = await feed.next((e) => e.event === 'message' && e.data.ts === first.ts && e.data.edited);
    expect(edited.data.blocks).toEqual([expect.objectContaining({ text: { type: 'mrkdwn', text: '*Succeeded*' } })]);

    await client.chat.postEphemeral({ channel: 'C0OPS', user: 'U0ALICE', thread_ts: first.ts, text: 'Only the approvers of demo may answer this gate' });
    const ephemeral = await feed.next((e) => e.event === 'ephemeral');
    expect(ephemeral.data).toMatchObject({ user: 'U0ALICE', channel: 'C0OPS', threadTs: first.ts, text: 'Only the approvers of demo may answer this gate', source: 'chat.postEphemeral' });
  });

  it('answers a user action it cannot carry out with a sentence, and sends nothing to the bot', async () => {
    const posted = await client.chat.postMessage({ channel: 'C0OPS', text: 'no buttons here' });
    expect(await act('click', { userId: 'U0ALICE', channelId: 'C0OPS', messageTs: posted.ts, actionId: 'gate:continue' })).toEqual({
      status: 400,
      body: { ok: false, message: `clicking a button: message ${posted.ts} has no button "gate:continue"; buttons: none` },
    });
    expect(await act('command', { userId: 'U0ALICE', text: 'help' })).toEqual({
      status: 400, body: { ok: false, message: 'a command needs "channelId" (a non-empty string)' },
    });
    expect(await act('close', { userId: 'U0ALICE', viewId: 'V404' })).toEqual({
      status: 400, body: { ok: false, message: 'closing a modal: V404 is not a modal of U0ALICE' },
    });
    expect(await act('dance', {})).toEqual({ status: 400, body: { ok: false, message: 'no client action "dance"; use command, click, submit or close' } });
    expect(fake.deliveries).toEqual([]);
  });
});
