import type { StatusCardModel, TimelineEvent } from './timeline-event.js';

export interface ThreadRef {
  channel: string;
  /** ts of the parent status card. */
  ts: string;
}

/**
 * The upgrade's Slack thread. Everything but openThread is queued (outbox), paced to about one post per second per
 * channel, retried with backoff while Slack is slow or down, and deduplicated by `key`: a step re-run after a
 * crash that emits the same key posts nothing twice. These methods resolve once the post is queued; they never
 * throw for Slack failures, so Slack can never stall or fail an upgrade.
 */
export interface ThreadPort {
  /** Posts the parent status card (synchronously: the start command needs the thread before it enqueues). */
  openThread(channel: string, card: StatusCardModel): Promise<ThreadRef>;
  /** Replaces the parent card (chat.update); later updates supersede queued ones. */
  updateStatusCard(thread: ThreadRef, card: StatusCardModel): Promise<void>;
  /**
   * One thread reply per key. A 'gate-answered' event whose gate was posted under key K is applied as a
   * chat.update of that gate card (buttons removed, "Approved by @x at T"), keyed `${K}`.
   */
  postEvent(thread: ThreadRef, key: string, event: TimelineEvent): Promise<void>;
  /** Uploads a Markdown file into the thread (files.uploadV2), once per key. */
  uploadMarkdown(thread: ThreadRef, key: string, filename: string, title: string, content: string): Promise<void>;
}
