import type { FakeMessage } from '../conversation-types.js';
import { flagArg, stringArg, type SlackArgs } from '../parse-slack-body.js';
import { failure, toApiMessage, type WebApiContext, type WebApiHandler } from './web-api-context.js';

/**
 * Reading a channel back: conversations.history (top-level messages, newest first) and conversations.replies (a
 * thread, parent first, then replies oldest first), with Slack's window (`oldest`/`latest`, exclusive unless
 * `inclusive`), `limit`, cursor pagination (`response_metadata.next_cursor`, Slack's `next_ts:` cursor) and message
 * metadata only when `include_all_metadata` is set. The bot uses these to find a post whose answer was lost.
 */

const HISTORY_DEFAULT_LIMIT = 100;
const REPLIES_DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 1000;
const TS = /^\d+(\.\d{1,6})?$/;

/** Slack ts as a number of microseconds, so comparisons are exact. */
const micros = (ts: string): number => {
  const [seconds, fraction = ''] = ts.split('.');
  return Number(seconds) * 1e6 + Number(fraction.padEnd(6, '0'));
};

/** Slack's cursors are base64 of `next_ts:<ts without the dot>`; any other value is `invalid_cursor`. */
const encodeCursor = (ts: string): string => Buffer.from(`next_ts:${ts.replace('.', '')}`).toString('base64');

function decodeCursor(cursor: string): number | undefined {
  const match = /^next_ts:(\d{7,})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

interface Window {
  inWindow(ts: string): boolean;
  limit: number;
  cursor?: number;
  includeMetadata: boolean;
}

function readWindow(args: SlackArgs, defaultLimit: number): Window | { error: string } {
  const oldest = stringArg(args.oldest);
  const latest = stringArg(args.latest);
  if (oldest !== undefined && oldest !== '' && !TS.test(oldest)) return { error: 'invalid_ts_oldest' };
  if (latest !== undefined && latest !== '' && !TS.test(latest)) return { error: 'invalid_ts_latest' };
  const inclusive = flagArg(args.inclusive);
  const low = oldest ? micros(oldest) : 0;
  const high = latest ? micros(latest) : Number.POSITIVE_INFINITY;
  const rawLimit = Number(stringArg(args.limit) ?? defaultLimit);
  const limit = Number.isFinite(rawLimit) && rawLimit > 0 ? Math.min(Math.floor(rawLimit), MAX_LIMIT) : defaultLimit;
  const cursorArg = stringArg(args.cursor);
  const cursor = cursorArg ? decodeCursor(cursorArg) : undefined;
  if (cursorArg && cursor === undefined) return { error: 'invalid_cursor' };
  return {
    inWindow: (ts) => {
      const at = micros(ts);
      return inclusive ? at >= low && at <= high : at > low && at < high;
    },
    limit,
    cursor,
    includeMetadata: flagArg(args.include_all_metadata),
  };
}

/** A message as conversations.* return it: thread fields on parents and replies, metadata only when asked for. */
function toListedMessage(message: FakeMessage, ctx: WebApiContext, window: Window, parent?: FakeMessage): Record<string, unknown> {
  const live = message.replies.filter((reply) => !reply.deleted);
  const base = message.deleted
    ? { type: 'message', subtype: 'tombstone', text: 'This message was deleted.', user: 'USLACKBOT', ts: message.ts, hidden: true }
    : toApiMessage(message, ctx.workspace, { includeMetadata: window.includeMetadata });
  const thread =
    live.length > 0
      ? {
          thread_ts: message.ts,
          reply_count: live.length,
          reply_users: [...new Set(live.map((reply) => reply.user))],
          reply_users_count: new Set(live.map((reply) => reply.user)).size,
          latest_reply: live.at(-1)!.ts,
        }
      : {};
  return { ...base, ...thread, ...(parent ? { thread_ts: parent.ts, parent_user_id: parent.user } : {}) };
}

function page<T extends { ts: string }>(items: T[], window: Window, descending: boolean): { items: T[]; next?: string } {
  const from = window.cursor;
  const started = from === undefined ? items : items.filter((item) => (descending ? micros(item.ts) <= from : micros(item.ts) >= from));
  const taken = started.slice(0, window.limit);
  const following = started[window.limit];
  return { items: taken, next: following ? encodeCursor(following.ts) : undefined };
}

const history: WebApiHandler = (args, ctx) => {
  const channel = stringArg(args.channel);
  if (!channel) return failure('channel_not_found');
  const window = readWindow(args, HISTORY_DEFAULT_LIMIT);
  if ('error' in window) return failure(window.error);
  // Top-level messages and replies broadcast to the channel; a deleted parent stays as a tombstone while it has replies.
  const visible = ctx.conversation
    .messages(channel)
    .flatMap((message) => [message, ...message.replies.filter((reply) => reply.replyBroadcast)])
    .filter((message) => !message.deleted || message.replies.some((reply) => !reply.deleted))
    .filter((message) => window.inWindow(message.ts))
    .sort((a, b) => micros(b.ts) - micros(a.ts));
  const { items, next } = page(visible, window, true);
  return {
    ok: true,
    messages: items.map((message) => {
      const parent = message.threadTs ? ctx.conversation.findMessage(channel, message.threadTs) : undefined;
      const listed = toListedMessage(message, ctx, window, parent);
      return message.replyBroadcast && parent ? { ...listed, subtype: 'thread_broadcast', root: toListedMessage(parent, ctx, window) } : listed;
    }),
    has_more: next !== undefined,
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
    response_metadata: { next_cursor: next ?? '' },
  };
};

const replies: WebApiHandler = (args, ctx) => {
  const channel = stringArg(args.channel);
  const ts = stringArg(args.ts);
  if (!channel) return failure('channel_not_found');
  if (!ts) return failure('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: ts'] } });
  const window = readWindow(args, REPLIES_DEFAULT_LIMIT);
  if ('error' in window) return failure(window.error);
  // `ts` may name a reply: Slack answers with the whole thread it belongs to.
  const named = ctx.conversation.findMessage(channel, ts);
  const parent = named?.threadTs ? ctx.conversation.findMessage(channel, named.threadTs) : named;
  const liveReplies = parent?.replies.filter((reply) => !reply.deleted) ?? [];
  if (!parent || (parent.deleted && liveReplies.length === 0)) return failure('thread_not_found');
  // The parent heads the first page whatever the window; later pages hold replies only.
  const inWindow = liveReplies.filter((reply) => window.inWindow(reply.ts));
  const first = window.cursor === undefined;
  const budget = { ...window, limit: first ? Math.max(window.limit - 1, 0) : window.limit };
  const { items, next } = budget.limit === 0 ? { items: [], next: inWindow[0] ? encodeCursor(inWindow[0].ts) : undefined } : page(inWindow, budget, false);
  const messages = items.map((reply) => toListedMessage(reply, ctx, window, parent));
  return {
    ok: true,
    messages: first ? [toListedMessage(parent, ctx, window), ...messages] : messages,
    has_more: next !== undefined,
    response_metadata: { next_cursor: next ?? '' },
  };
};

export const conversationsMethods: Record<string, WebApiHandler> = {
  'conversations.history': history,
  'conversations.replies': replies,
};
