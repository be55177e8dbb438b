import type { StatusCardModel, StepMessageModel, TimelineEvent } from '../timeline-event.js';

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
  /**
   * One thread reply per `key`, kept current in place: the first call posts it, later calls edit that same message
   * (chat.update), after a restart too (its ts is stored with the outbox). Versions are ranked (started < progress <
   * ended): one that would take the message back (a step re-run after a crash re-emitting "started") is dropped,
   * and `dedupeKey`, when given, makes a repeated call with it a no-op. Progress edits are rate-limited per key.
   */
  upsertStepMessage(thread: ThreadRef, key: string, message: StepMessageModel, dedupeKey?: string): Promise<void>;
  /** Uploads a Markdown file into the thread (files.uploadV2), once per key. */
  uploadMarkdown(thread: ThreadRef, key: string, filename: string, title: string, content: string): Promise<void>;
  /** A user's Slack name (users.info; needs users:read), for files read outside Slack; undefined when unknown. */
  userName?(userId: string): Promise<string | undefined>;
}
