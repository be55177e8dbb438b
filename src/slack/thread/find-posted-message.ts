import type { WebClient } from '@slack/web-api';

/**
 * Slack has no idempotency key for chat.postMessage, so a post whose answer was lost (HTTP 5xx after Slack took it,
 * a connection dropped on the way back, a worker killed between Slack's answer and Redis) cannot simply be sent
 * again. Instead every post carries its own id in message metadata, and before posting again the outbox looks for a
 * message with that id: conversations.replies for a thread reply, conversations.history for a top-level post.
 *
 * Reading needs the bot scopes channels:history (public channels) and groups:history (private channels). Without
 * them Slack answers missing_scope, and the caller falls back to posting again (at least once, maybe twice).
 */

/** `event_type` of the bot's message metadata; Slack shows it to developers, so it names the app and purpose. */
export const OUTBOX_EVENT_TYPE = 'eks_upgrade_outbox';

/** A thread of an upgrade is bounded (progress is coalesced), so this many pages is far more than one thread has. */
const REPLIES_PAGE_SIZE = 200;
const MAX_REPLY_PAGES = 25;
/** A lost top-level post is among the channel's newest messages; a few pages cover a busy channel's minute. */
const HISTORY_PAGE_SIZE = 100;
const MAX_HISTORY_PAGES = 3;

export interface OutboxMetadata {
  event_type: typeof OUTBOX_EVENT_TYPE;
  event_payload: { post_id: string; key: string };
}

/**
 * The metadata that makes a post findable: `post_id` is unique per post (the outbox entry's id), `key` is the
 * job's event key, for a human reading the message's metadata.
 */
export function outboxMetadata(postId: string, key: string): OutboxMetadata {
  return { event_type: OUTBOX_EVENT_TYPE, event_payload: { post_id: postId, key } };
}

function carriesPostId(message: { metadata?: unknown }, postId: string): boolean {
  const metadata = message.metadata as { event_type?: unknown; event_payload?: { post_id?: unknown } } | undefined;
  return metadata?.event_type === OUTBOX_EVENT_TYPE && metadata.event_payload?.post_id === postId;
}

/**
 * The ts of the reply in thread `threadTs` that carries `postId`, or undefined when Slack has no such reply.
 * Throws the WebClient's error when Slack cannot be asked; the caller decides whether to retry or post anyway.
 */
export async function findPostedReply(client: WebClient, channel: string, threadTs: string, postId: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_REPLY_PAGES; page++) {
    const result = await client.conversations.replies({
      channel,
      ts: threadTs,
      include_all_metadata: true,
      limit: REPLIES_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    // The parent may head every page or only the first; it never carries a post id of a reply, so no need to care.
    const found = (result.messages ?? []).find((message) => message.ts !== threadTs && carriesPostId(message, postId));
    if (found?.ts) return found.ts;
    cursor = result.response_metadata?.next_cursor;
    if (!result.has_more || !cursor) return undefined;
  }
  return undefined;
}

/** The ts of the top-level message in `channel` that carries `postId`, looking at the newest few hundred messages. */
export async function findPostedTopLevel(client: WebClient, channel: string, postId: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
    const result = await client.conversations.history({
      channel,
      include_all_metadata: true,
      limit: HISTORY_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const found = (result.messages ?? []).find((message) => carriesPostId(message, postId));
    if (found?.ts) return found.ts;
    cursor = result.response_metadata?.next_cursor;
    if (!result.has_more || !cursor) return undefined;
  }
  return undefined;
}
