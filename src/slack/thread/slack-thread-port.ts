/**
 * ThreadPort over Slack, with a durable outbox in Redis.
 *
 * Design (issue 5, "The thread"):
 * - Everything but openThread is queued and returns as soon as Redis has it; Slack being slow, rate limiting or
 *   down never blocks or fails the upgrade. State lives in Redis (outbox-store.ts: a plain list per channel driven
 *   by atomic Lua scripts — chosen over BullMQ because ordering, in-place coalescing and one in-flight item per
 *   channel are exactly a list's semantics, while BullMQ retries reorder jobs), so queued posts, dedupe keys and
 *   gate-card ts survive restarts.
 * - One pump per channel across all processes (a Redis lease renewed by heartbeat) delivers entries strictly in
 *   order, paced as Slack limits them: one post per `minIntervalMs` per channel, and edits (chat.update) from one
 *   bucket for the whole workspace (Tier 3 is per method and workspace), so an edit never waits for the posts' pace.
 *   It retries the head entry on 429 (after exactly Retry-After) and with exponential backoff on 5xx and network
 *   errors (429s do not grow that backoff). Ordering beats throughput: a later reply never overtakes an earlier one
 *   that is still being retried.
 * - Coalescing: queued 'progress' replies of the same step collapse into the newest; the status card keeps one
 *   queued update that sends whatever state is newest when its turn comes (chat.update, paced like the rest).
 * - Step messages (upsertStepMessage): one reply per step, posted when it starts and edited in place (its ts is
 *   stored under the key, so an edit after a restart edits the same message). Versions are ranked, so a step re-run
 *   after a crash never takes ✅ back to ▶️; progress edits of one key are sent at most once per
 *   `progressEditIntervalMs` of wall time (the newest one waits its turn; the step's end goes at once), and like
 *   every edit within the workspace's chat.update budget.
 * - Gate cards: the ts of a posted 'gate-opened' is stored under its key (and the gate's job/id/revision); the
 *   'gate-answered' with that key becomes a chat.update of the card.
 *
 * WebClient retries: the injected client is the bot's own (src/slack/slack-web-client.ts), with retries off and
 * rate-limited calls rejected, so a 429 comes back here at once and the outbox honours Retry-After itself; the retry
 * policy lives in one place (slack-error-verdict.ts). web-api's default client would retry for ~30 minutes and, on
 * a 429, pause its whole request queue, holding one entry (and the channel's order) hostage.
 *
 * No duplicates although Slack has no idempotency key for chat.postMessage: every post carries its entry's id in
 * message metadata, and a post that may have reached Slack without us seeing the answer (5xx, dropped connection,
 * a worker killed between Slack's answer and Redis) is looked up in the thread (conversations.replies, which needs
 * the channels:history and groups:history scopes) before it is sent again — see find-posted-message.ts. Without
 * those scopes the outbox falls back to posting again (at least once). Markdown uploads are not looked up.
 */
import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { QueueKit } from '../../store/queue-kit.js';
import type { Logger } from '../../log/logger.js';
import type { Metrics } from '../../ports/metrics.js';
import { systemClock, type Clock } from '../../ports/clock.js';
import type { ThreadPort } from '../../ports/slack/thread-port.js';
import { describeEntry, stepMessageRank, type OutboxEntry } from './outbox-entry.js';
import { createOutboxStore, type DedupeNamespace } from './outbox-store.js';
import { createOutboxWorker } from './outbox-worker.js';
import { openThread } from './open-thread.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './slack-error-verdict.js';

export interface SlackThreadPortOptions {
  /** The bot's Web API client (src/slack/slack-web-client.ts: no retries of its own, rate-limited calls rejected). */
  client: WebClient;
  /** The entry point's Redis connections (src/store/queue-kit.ts); the outbox lives under `<prefix>:thread:*`. */
  queues: QueueKit;
  logger: Logger;
  /**
   * Pacing and backoff run on this clock. Keep the default (system time) outside tests: Slack's limits are in real
   * time, and the channel's next allowed call time is shared in Redis between processes, so clocks must agree.
   */
  clock?: Clock;
  /** Time between two posts to one channel once its burst is spent. Default 1000 (Slack: ~1 message/s per channel). */
  minIntervalMs?: number;
  /**
   * Posts one channel may take at once before the pace applies. Default 3: Slack grants "short bursts >1" without
   * saying how many (https://docs.slack.dev/apis/web-api/rate-limits), so the bot asks for little; a 429 past it is
   * waited out with its Retry-After like any other. A burst lets a preflight's findings and its gate card, or a
   * job's verify, image note and summary, go out together instead of a second apart.
   */
  postBurst?: number;
  /**
   * The workspace's chat.update budget, shared by every channel and process: at most `editsPerWindow` (default 50)
   * edits in any `editWindowMs` (default 60 × minIntervalMs: a minute at the default pace), Slack's Tier 3 of "50+
   * per minute". Half of it may go at once; the rest is spread evenly, so a busy thread keeps a steady pace instead
   * of spending the minute's allowance at once and then waiting.
   */
  editsPerWindow?: number;
  editWindowMs?: number;
  retry?: Partial<RetryPolicy>;
  pollIntervalMs?: number;
  lockTtlMs?: number;
  /**
   * At most one progress edit per step message per this many ms of wall time (Slack counts chat.update against its
   * limits too). Default 10000. The newest progress is sent when the interval is over; a step's end is never held.
   */
  progressEditIntervalMs?: number;
  /** Send latency and the queue's depth (read from Redis at scrape time). */
  metrics?: Metrics;
}

export type SlackThreadPort = ThreadPort & {
  /** Starts delivering (any number of processes may; each channel is delivered by one at a time). */
  start(): Promise<void>;
  /** Stops delivering after the current Slack call; what is queued stays in Redis for the next worker. */
  close(): Promise<void>;
  /** Resolves once every queued entry (all channels under this prefix) has been delivered or dead-lettered. */
  drained(): Promise<void>;
};

/** Posts a channel may take at once (SlackThreadPortOptions.postBurst). */
export const DEFAULT_POST_BURST = 3;

export function createSlackThreadPort(opts: SlackThreadPortOptions): SlackThreadPort {
  const clock = opts.clock ?? systemClock;
  const minIntervalMs = opts.minIntervalMs ?? 1000;
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  const log = opts.logger.child({ component: 'slack-thread' });
  const { client } = opts;
  const redis = opts.queues.redis({ connectionName: 'slack-thread-outbox' });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'Redis connection of the Slack outbox failed; reconnecting'));
  const store = createOutboxStore(redis, opts.queues.prefix);
  const worker = createOutboxWorker({
    store,
    client,
    logger: opts.logger,
    clock,
    minIntervalMs,
    postBurst: opts.postBurst ?? DEFAULT_POST_BURST,
    editsPerWindow: opts.editsPerWindow ?? 50,
    editWindowMs: opts.editWindowMs ?? minIntervalMs * 60,
    retry,
    pollIntervalMs: opts.pollIntervalMs ?? 500,
    lockTtlMs: opts.lockTtlMs ?? 30_000,
    metrics: opts.metrics,
  });
  opts.metrics?.trackOutboxDepth(() => store.depth());
  let closed = false;
  const progressEditIntervalMs = opts.progressEditIntervalMs ?? 10_000;
  /** Per step-message key: when a version was last queued (wall time), and the newest progress held back since. */
  const lastQueuedAt = new Map<string, number>();
  const heldProgress = new Map<string, { timer: NodeJS.Timeout; send: () => Promise<void> }>();

  async function enqueueUpsert(entry: Extract<OutboxEntry, { op: 'upsert' }>, dedupeKey: string | undefined): Promise<void> {
    try {
      const outcome = await store.enqueueUpsert(entry, dedupeKey);
      log.debug({ ...describeEntry(entry), outcome }, 'thread message version queued');
      if (outcome === 'queued' || outcome === 'coalesced') worker.wake();
    } catch (error) {
      throw new Error(`queueing a Slack thread message (key ${entry.key}) failed: Redis did not answer; the step can be retried`, {
        cause: error,
      });
    }
  }

  async function enqueue(entry: Exclude<OutboxEntry, { op: 'card' }>, namespace: DedupeNamespace): Promise<void> {
    try {
      const outcome = await store.enqueue(entry, namespace);
      log.debug({ ...describeEntry(entry), outcome }, 'thread post queued');
      if (outcome !== 'duplicate') worker.wake();
    } catch (error) {
      throw new Error(`queueing a Slack thread post (key ${entry.key}) failed: Redis did not answer; the step can be retried`, {
        cause: error,
      });
    }
  }

  // users.info answers, per user ID, for the exported timelines (names change rarely; a process lives days).
  const names = new Map<string, Promise<string | undefined>>();
  return {
    async openThread(channel, card) {
      const thread = await openThread(client, clock, retry, channel, card);
      // The parent post counts towards the channel's pace: it takes a token, owed when the bucket was empty.
      await store.takePostToken(thread.channel, clock.now(), minIntervalMs, opts.postBurst ?? DEFAULT_POST_BURST, true).catch(() => undefined);
      return thread;
    },

    async updateStatusCard(thread, card) {
      try {
        await store.enqueueCard({ id: randomUUID(), op: 'card', channel: thread.channel, threadTs: thread.ts }, card);
        worker.wake();
      } catch (error) {
        throw new Error('queueing a status card update failed: Redis did not answer; the step can be retried', { cause: error });
      }
    },

    async postEvent(thread, key, event) {
      const coalesce = event.kind === 'progress' ? { coalesce: `${thread.ts}|${event.step}` } : {};
      const entry: OutboxEntry = { id: randomUUID(), op: 'event', channel: thread.channel, threadTs: thread.ts, key, event, ...coalesce };
      await enqueue(entry, event.kind === 'gate-answered' ? 'answer' : 'event');
    },

    async upsertStepMessage(thread, key, message, dedupeKey) {
      const rank = stepMessageRank(message);
      const entry: OutboxEntry = { id: randomUUID(), op: 'upsert', channel: thread.channel, threadTs: thread.ts, key, message, rank };
      const mapKey = `${thread.channel}|${thread.ts}|${key}`;
      const held = heldProgress.get(mapKey);
      if (rank !== 1) {
        // A start or an end is queued at once; an end supersedes any progress held back.
        if (rank === 2) {
          if (held) clearTimeout(held.timer);
          heldProgress.delete(mapKey);
          lastQueuedAt.delete(mapKey);
        } else {
          lastQueuedAt.set(mapKey, Date.now());
        }
        return enqueueUpsert(entry, dedupeKey);
      }
      const wait = (lastQueuedAt.get(mapKey) ?? 0) + progressEditIntervalMs - Date.now();
      if (wait <= 0 && !held) {
        lastQueuedAt.set(mapKey, Date.now());
        return enqueueUpsert(entry, dedupeKey);
      }
      // Hold the newest progress until the interval is over; an older held one is replaced.
      const send = async () => {
        heldProgress.delete(mapKey);
        lastQueuedAt.set(mapKey, Date.now());
        await enqueueUpsert(entry, dedupeKey);
      };
      if (held) clearTimeout(held.timer);
      const timer = setTimeout(() => {
        send().catch((error: unknown) => log.warn({ err: error, key }, 'queueing a held progress edit failed; the next one carries on'));
      }, Math.max(0, wait));
      timer.unref();
      heldProgress.set(mapKey, { timer, send });
    },

    async userName(userId) {
      const cached = names.get(userId);
      if (cached) return cached;
      const lookup = client.users.info({ user: userId }).then(
        (answer) => answer.user?.name,
        () => undefined, // user_not_found, missing users:read, Slack down: the file shows the bare ID.
      );
      names.set(userId, lookup);
      return lookup;
    },

    async uploadMarkdown(thread, key, filename, title, content) {
      const entry: OutboxEntry = { id: randomUUID(), op: 'upload', channel: thread.channel, threadTs: thread.ts, key, filename, title, content };
      await enqueue(entry, 'file');
    },

    async start() {
      if (closed) throw new Error('starting the Slack thread outbox failed: it was closed; create a new one');
      worker.start();
    },

    async close() {
      if (closed) return;
      closed = true;
      // Progress held back by the edit interval is queued now, for whichever worker delivers next.
      const held = [...heldProgress.values()];
      heldProgress.clear();
      for (const { timer, send } of held) {
        clearTimeout(timer);
        await send().catch(() => undefined);
      }
      // Its Redis connection is the kit's, closed by the entry point after this.
      await worker.close();
    },

    async drained() {
      while ((await store.busyChannels()).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
