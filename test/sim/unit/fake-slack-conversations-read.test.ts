import { describe, expect, it } from 'vitest';
import { chatMethods } from '../../../src/sim/slack/web-api/chat-methods.js';
import { conversationsMethods } from '../../../src/sim/slack/web-api/conversations-methods.js';
import { createInteractionTokens } from '../../../src/sim/slack/interaction-tokens.js';
import type { SlackArgs } from '../../../src/sim/slack/parse-slack-body.js';
import { createSlackConversation } from '../../../src/sim/slack/slack-conversation.js';
import type { WebApiContext, Workspace } from '../../../src/sim/slack/web-api/web-api-context.js';
import { ALL_BOT_SCOPES } from '../../../src/sim/slack/web-api/token-scopes.js';

function fakeContext(): WebApiContext & { advance(ms: number): void } {
  let now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const clock = () => now;
  let id = 0;
  const workspace: Workspace = {
    teamId: 'T0FAKE', teamDomain: 'fake', appId: 'A0APP', botUserId: 'U0BOT', botId: 'B0BOT', botName: 'eks-upgrade',
    userGroups: new Map(), userNames: new Map(), channelNames: new Map(), access: { scopes: ALL_BOT_SCOPES },
  };
  return {
    conversation: createSlackConversation({ clock }),
    tokens: createInteractionTokens({ clock, baseUrl: () => 'http://fake' }),
    workspace,
    baseUrl: 'http://fake',
    clock,
    nextId: () => ++id,
    warn: () => undefined,
    advance: (ms) => { now += ms; },
  };
}

type Listed = { ts: string; text: string; thread_ts?: string; parent_user_id?: string; reply_count?: number; latest_reply?: string; metadata?: unknown; subtype?: string };
type Page = { ok: boolean; error?: string; messages: Listed[]; has_more: boolean; response_metadata: { next_cursor: string } };

const call = (ctx: WebApiContext, method: string, args: SlackArgs) =>
  (method.startsWith('chat.') ? chatMethods : conversationsMethods)[method](args, ctx) as unknown as Page & { ts: string };

const marker = (postId: string) => ({ event_type: 'eks_upgrade_outbox', event_payload: { post_id: postId, key: `k-${postId}` } });

/** A parent and `n` bot replies, one second apart, each with metadata naming it r1…rn. */
function thread(ctx: ReturnType<typeof fakeContext>, n: number) {
  const parent = call(ctx, 'chat.postMessage', { channel: 'C0OPS', text: 'parent' }).ts;
  const replies: string[] = [];
  for (let i = 1; i <= n; i++) {
    ctx.advance(1000);
    replies.push(call(ctx, 'chat.postMessage', { channel: 'C0OPS', thread_ts: parent, text: `reply ${i}`, metadata: marker(`r${i}`) }).ts);
  }
  return { parent, replies };
}

describe('fake Slack conversations.replies', () => {
  it('answers with the parent first, then the replies oldest first, with Slack\'s thread fields', () => {
    const ctx = fakeContext();
    const { parent, replies } = thread(ctx, 3);
    const page = call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent });
    expect(page).toMatchObject({ ok: true, has_more: false, response_metadata: { next_cursor: '' } });
    expect(page.messages.map((m) => m.text)).toEqual(['parent', 'reply 1', 'reply 2', 'reply 3']);
    expect(page.messages[0]).toMatchObject({ ts: parent, thread_ts: parent, reply_count: 3, latest_reply: replies[2] });
    expect(page.messages[1]).toMatchObject({ ts: replies[0], thread_ts: parent, parent_user_id: 'U0BOT' });
    // The ts of a reply names the same thread.
    expect(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: replies[1] }).messages.map((m) => m.text)).toHaveLength(4);
  });

  it('shows message metadata only with include_all_metadata (form bodies send it as "true")', () => {
    const ctx = fakeContext();
    const { parent } = thread(ctx, 1);
    expect(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent }).messages[1].metadata).toBeUndefined();
    const withMetadata = call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, include_all_metadata: 'true' });
    expect(withMetadata.messages[1].metadata).toEqual(marker('r1'));
    expect(withMetadata.messages[0].metadata).toBeUndefined();
  });

  it('pages with limit and next_cursor until has_more is false, every reply exactly once', () => {
    const ctx = fakeContext();
    const { parent } = thread(ctx, 5);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.ok).toBe(true);
      seen.push(...page.messages.map((m) => m.text));
      cursor = page.has_more ? page.response_metadata.next_cursor : undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual(['parent', 'reply 1', 'reply 2', 'reply 3', 'reply 4', 'reply 5']);
    expect(pages).toBe(3);
    expect(Buffer.from(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, limit: 2 }).response_metadata.next_cursor, 'base64').toString())
      .toMatch(/^next_ts:\d{16}$/);
  });

  it('keeps to oldest/latest (exclusive unless inclusive) and leaves deleted replies out', () => {
    const ctx = fakeContext();
    const { parent, replies } = thread(ctx, 4);
    const texts = (args: SlackArgs) => call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, ...args }).messages.map((m) => m.text);
    expect(texts({ oldest: replies[1] })).toEqual(['parent', 'reply 3', 'reply 4']);
    expect(texts({ oldest: replies[1], inclusive: true })).toEqual(['parent', 'reply 2', 'reply 3', 'reply 4']);
    expect(texts({ latest: replies[1] })).toEqual(['parent', 'reply 1']);
    call(ctx, 'chat.delete', { channel: 'C0OPS', ts: replies[2] });
    expect(texts({})).toEqual(['parent', 'reply 1', 'reply 2', 'reply 4']);
  });

  it('answers errors like Slack: unknown thread, bad window or cursor', () => {
    const ctx = fakeContext();
    const { parent } = thread(ctx, 1);
    expect(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: '1.000001' })).toMatchObject({ ok: false, error: 'thread_not_found' });
    expect(call(ctx, 'conversations.replies', { ts: parent })).toMatchObject({ ok: false, error: 'channel_not_found' });
    expect(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, oldest: 'yesterday' })).toMatchObject({ ok: false, error: 'invalid_ts_oldest' });
    expect(call(ctx, 'conversations.replies', { channel: 'C0OPS', ts: parent, cursor: 'bogus' })).toMatchObject({ ok: false, error: 'invalid_cursor' });
  });

  it('refuses metadata that is not { event_type, event_payload } on chat.postMessage', () => {
    const ctx = fakeContext();
    expect(call(ctx, 'chat.postMessage', { channel: 'C0OPS', text: 'x', metadata: { key: 'k' } })).toMatchObject({ ok: false, error: 'invalid_metadata_format' });
    expect(call(ctx, 'chat.postMessage', { channel: 'C0OPS', text: 'x', metadata: marker('ok') })).toMatchObject({ ok: true });
  });
});

describe('fake Slack conversations.history', () => {
  it('lists top-level messages newest first (not plain replies), with thread counts and paging', () => {
    const ctx = fakeContext();
    const first = thread(ctx, 2);
    ctx.advance(1000);
    call(ctx, 'chat.postMessage', { channel: 'C0OPS', text: 'second parent', metadata: marker('p2') });
    ctx.advance(1000);
    call(ctx, 'chat.postMessage', { channel: 'C0OTHER', text: 'elsewhere' });
    const page = call(ctx, 'conversations.history', { channel: 'C0OPS', include_all_metadata: true, limit: 1 });
    expect(page.messages.map((m) => m.text)).toEqual(['second parent']);
    expect(page.messages[0].metadata).toEqual(marker('p2'));
    expect(page.has_more).toBe(true);
    const next = call(ctx, 'conversations.history', { channel: 'C0OPS', cursor: page.response_metadata.next_cursor });
    expect(next.messages.map((m) => m.text)).toEqual(['parent']);
    expect(next.messages[0]).toMatchObject({ ts: first.parent, reply_count: 2, latest_reply: first.replies[1] });
    expect(next).toMatchObject({ has_more: false, response_metadata: { next_cursor: '' } });
  });
});
