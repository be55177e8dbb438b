import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { renderStatusCard } from '../../report/blocks/render-status-card.js';
import { renderTimelineEvent } from '../../report/blocks/render-timeline-event.js';
import { renderStepMessage } from '../../report/blocks/render-step-message.js';
import type { GateModel } from '../../ports/timeline-event.js';
import { findPostedReply, outboxMetadata } from './find-posted-message.js';
import { gateIdentity, upsertPostId, type OutboxEntry } from './outbox-entry.js';
import type { OutboxStore } from './outbox-store.js';

/** How to deliver an entry this time; set by the worker after Slack refused an earlier attempt. */
export interface DeliveryMode {
  /** Slack refused our blocks: send the fallback text alone (and clear blocks on updates). */
  plainText: boolean;
  /** The gate card (or kept reply) to update is gone or frozen: post it as a new reply instead. */
  postInsteadOfUpdate: boolean;
}

/** What one delivery attempt got as far as; set by deliverEntry, read by the worker when the attempt failed. */
export interface DeliveryProgress {
  /** chat.postMessage was called: if it failed without a clear refusal, the post may be in Slack already. */
  postSent: boolean;
}

/** The Slack methods an entry is delivered with; posts and edits are paced apart (Slack limits them apart). */
export type DeliveryMethod = 'chat.postMessage' | 'chat.update' | 'files.uploadV2';

/**
 * Awaited just before each Slack call, with the method it is about to use: the worker's pacing (a post waits for the
 * channel's pace, an edit for the workspace's chat.update budget). It throws to give up the attempt.
 */
export type BeforeCall = (method: DeliveryMethod) => Promise<void>;

const PLAIN_TEXT_NOTE = '\n_(shown as plain text: Slack refused the formatted card; the exported timeline has it all)_';

function gateTsNames(key: string, gate: GateModel): string[] {
  return [`key:${key}`, `gate:${gateIdentity(gate)}`];
}

function payload(message: SlackMessage, mode: DeliveryMode): { text: string; blocks?: SlackMessage['blocks'] } {
  if (mode.plainText) return { text: `${message.text}${PLAIN_TEXT_NOTE}`, blocks: [] };
  return { text: message.text, blocks: message.blocks };
}

/**
 * Performs the Slack call(s) for one outbox entry. Throws the WebClient's error on failure; the worker decides
 * what that means (slack-error-verdict.ts). Side records (the ts of a gate card) are written before returning so
 * the entry is only completed once everything it implies is stored.
 */
export async function deliverEntry(
  client: WebClient,
  store: OutboxStore,
  entry: OutboxEntry,
  mode: DeliveryMode,
  progress: DeliveryProgress = { postSent: false },
  beforeCall: BeforeCall = async () => undefined,
): Promise<void> {
  const { channel, threadTs } = entry;
  switch (entry.op) {
    case 'card': {
      // Waits before reading the card: whatever is newest when the budget allows is what goes.
      await beforeCall('chat.update');
      const card = await store.takeCard(channel, threadTs);
      if (!card) return;
      await client.chat.update({ channel, ts: threadTs, ...payload(renderStatusCard(card), mode) });
      return;
    }
    case 'upload': {
      await beforeCall('files.uploadV2');
      await client.filesUploadV2({
        channel_id: channel,
        thread_ts: threadTs,
        filename: entry.filename,
        title: entry.title,
        content: entry.content,
      });
      return;
    }
    case 'upsert': {
      const body = payload(renderStepMessage(entry.message), mode);
      const metadata = outboxMetadata(upsertPostId(entry.key), entry.key);
      const ts = mode.postInsteadOfUpdate ? undefined : await store.findMessageTs(channel, threadTs, entry.key);
      if (ts) {
        await beforeCall('chat.update');
        await client.chat.update({ channel, ts, text: body.text, blocks: body.blocks ?? [], metadata });
        return;
      }
      await beforeCall('chat.postMessage');
      progress.postSent = true;
      const result = await client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: body.text,
        ...(body.blocks && body.blocks.length > 0 ? { blocks: body.blocks } : {}),
        // One post id for every version of the key: whichever version comes next finds a post whose answer was lost.
        metadata,
        unfurl_links: false,
        unfurl_media: false,
      });
      if (typeof result.ts === 'string') await recordPosted(store, entry, result.ts);
      return;
    }
    case 'event': {
      const { event } = entry;
      const message = renderTimelineEvent(event);
      // A gate card already posted is edited in place: by its answer, or by a newer version of the open card (a
      // guard's breach card saying the guard recovered, issue 29), found by the gate's identity.
      if ((event.kind === 'gate-answered' || event.kind === 'gate-opened') && !mode.postInsteadOfUpdate) {
        const ts = await store.findGateTs(channel, threadTs, gateTsNames(entry.key, event.gate));
        if (ts) {
          await beforeCall('chat.update');
          await client.chat.update({ channel, ts, ...payload(message, mode) });
          return;
        }
      }
      const body = payload(message, mode);
      await beforeCall('chat.postMessage');
      progress.postSent = true;
      const result = await client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: body.text,
        ...(body.blocks && body.blocks.length > 0 ? { blocks: body.blocks } : {}),
        // The entry's id travels with the post, so a post whose answer is lost can be found instead of repeated.
        metadata: outboxMetadata(entry.id, entry.key),
        unfurl_links: false,
        unfurl_media: false,
      });
      if (typeof result.ts === 'string') await recordPosted(store, entry, result.ts);
      return;
    }
  }
}

/** Whether an entry is delivered with chat.postMessage (or may be), so Slack can be asked whether it has it. */
export function postsMessage(entry: OutboxEntry): entry is Extract<OutboxEntry, { op: 'event' | 'upsert' }> {
  return entry.op === 'event' || entry.op === 'upsert';
}

/**
 * The ts of the reply this entry already put in the thread, found by its id in the message metadata; undefined
 * when Slack has no such reply. Throws the WebClient's error when Slack cannot be asked.
 */
export async function findDelivered(client: WebClient, entry: Extract<OutboxEntry, { op: 'event' | 'upsert' }>): Promise<string | undefined> {
  return findPostedReply(client, entry.channel, entry.threadTs, entry.op === 'upsert' ? upsertPostId(entry.key) : entry.id);
}

/** What a post implies besides itself: a gate card's ts (for the answer's chat.update), a kept reply's ts (for its edits). */
export async function recordPosted(store: OutboxStore, entry: OutboxEntry, ts: string): Promise<void> {
  if (entry.op === 'upsert') await store.saveMessageTs(entry.channel, entry.threadTs, entry.key, ts);
  if (entry.op === 'event' && entry.event.kind === 'gate-opened') {
    await store.saveGateTs(entry.channel, entry.threadTs, gateTsNames(entry.key, entry.event.gate), ts);
  }
}
