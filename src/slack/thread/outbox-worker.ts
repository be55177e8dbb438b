import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../log/logger.js';
import type { Clock } from '../../ports/clock.js';
import type { Metrics } from '../../ports/metrics.js';
import { deliverEntry, findDelivered, postsMessage, recordPosted, type DeliveryMethod, type DeliveryMode, type DeliveryProgress } from './deliver-entry.js';
import { describeEntry, parseOutboxEntry, type OutboxEntry } from './outbox-entry.js';
import type { ClaimedEntry, OutboxStore } from './outbox-store.js';
import { mayHaveTakenEffect, slackErrorVerdict, type RetryPolicy } from './slack-error-verdict.js';

export interface OutboxWorkerOptions {
  store: OutboxStore;
  client: WebClient;
  logger: Logger;
  clock: Clock;
  /**
   * Posts (chat.postMessage, file uploads) to one channel: a burst of `postBurst`, then one per `minIntervalMs`
   * (Slack: "1 per second", "short bursts >1 allowed", https://docs.slack.dev/apis/web-api/rate-limits).
   */
  minIntervalMs: number;
  postBurst: number;
  /**
   * chat.update budget of the whole workspace (Slack's Tier 3, per method and workspace): at most `editsPerWindow`
   * edits in any `editWindowMs`, shared by every channel and process. Edits do not wait for the posts' pace.
   */
  editsPerWindow: number;
  editWindowMs: number;
  retry: RetryPolicy;
  /** How often to look for channels with work queued by other processes. */
  pollIntervalMs: number;
  /** Lease on a channel; renewed by a heartbeat while this worker delivers it, so a dead worker frees it quickly. */
  lockTtlMs: number;
  /** Latency of each Slack call by outcome (eks_upgrade_outbox_send_seconds). */
  metrics?: Metrics;
}

export interface OutboxWorker {
  start(): void;
  /** Something was queued locally: look at once instead of waiting for the next poll. */
  wake(): void;
  close(): Promise<void>;
}

/** Thrown by the pacing hook when the worker must stop (closing, or its lease on the channel was lost). */
class DeliveryStopped extends Error {}

/**
 * Delivers the outbox: at most one pump per channel across all processes (a Redis lease), each pump taking the
 * channel's entries strictly in order, retrying the head entry until Slack takes it. Pacing follows Slack's own
 * limits, which count posts and edits apart: a short burst of posts, then one per `minIntervalMs` per channel
 * (chat.postMessage's "one message per second per channel"), edits within the workspace's chat.update budget (Tier 3). A failing channel waits, edits
 * included; other channels, and the upgrade itself, carry on.
 */
export function createOutboxWorker(opts: OutboxWorkerOptions): OutboxWorker {
  const { store, client, clock } = opts;
  // A bucket whose burst and refill together never exceed `editsPerWindow` in any window: half the allowance at once
  // (a step ending, a gate answered, a burst of progress), the other half spread over the window.
  const editBurst = Math.max(1, Math.floor(opts.editsPerWindow / 2));
  // One fewer than the allowance: Slack's clock and ours differ by a call's transit, so a window counted on Slack's
  // side must not find one edit too many.
  const editInterval = opts.editWindowMs / Math.max(1, opts.editsPerWindow - editBurst - 1);
  const log = opts.logger.child({ component: 'slack-thread-outbox' });
  const pumps = new Map<string, Promise<void>>();
  /** When this process last edited a message in each channel (the pump holds a channel's lease, so it is the one). */
  const lastEditAt = new Map<string, number>();
  const stop = new AbortController();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakePending = false;
  let wakeNow: (() => void) | undefined;

  function wake(): void {
    wakePending = true;
    wakeNow?.();
  }

  async function idle(ms: number): Promise<void> {
    if (wakePending) {
      wakePending = false;
      return;
    }
    // Polling for work queued by other processes is infrastructure time, not the injected clock's.
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      wakeNow = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    wakeNow = undefined;
    wakePending = false;
  }

  // Raced against every wait: a clock whose sleep ignores abort signals (a manual test clock) must not hang close().
  const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));

  async function pause(ms: number): Promise<boolean> {
    if (ms <= 0) return running;
    await Promise.race([clock.sleep(ms, stop.signal).catch(() => undefined), stopped]);
    return running;
  }

  /**
   * Delivers one entry, retrying until Slack takes it, drops it for good, or this worker must stop.
   *
   * No duplicates: when a post may have reached Slack although we never saw the answer (a 5xx, a dropped
   * connection, or an entry taken over from a worker that stopped mid-delivery), Slack is asked first whether the
   * thread already has it (by the entry id in its metadata); if so, it is recorded as delivered instead of posted
   * again. Backoff: only 5xx / network / unknown failures grow it (`failures`, per entry, so it starts over after
   * each delivered entry); a 429 waits exactly its Retry-After.
   */
  async function deliver(channel: string, claimed: ClaimedEntry, entry: OutboxEntry, lease: { lost: boolean }): Promise<boolean> {
    const { raw } = claimed;
    const mode: DeliveryMode = { plainText: false, postInsteadOfUpdate: false };
    const holdFor = (ms: number) => store.holdUntil(channel, clock.now() + Math.max(ms, opts.minIntervalMs), clock.now());
    // A failure holds every call to the channel (Retry-After, backoff), not only its posts.
    const holdAll = async (ms: number) => {
      await holdFor(ms);
      await store.holdChannel(channel, clock.now() + ms, clock.now());
    };
    let method: DeliveryMethod | undefined;
    // The bucket the last call drew from, and when: once it has answered, its transit is charged to that bucket.
    let drawn: { bucket: { channel: string } | 'edits'; at: number; intervalMs: number; burst: number } | undefined;
    const settle = async () => {
      if (!drawn) return;
      const { bucket, at, intervalMs, burst } = drawn;
      drawn = undefined;
      await store.oweTransit(bucket, clock.now(), intervalMs, burst, clock.now() - at);
    };
    // Waits until the bucket gives a token (`take` answers the ms to wait, 0 once taken), then notes it for settle().
    const draw = async (bucket: NonNullable<typeof drawn>['bucket'], intervalMs: number, burst: number, take: () => Promise<number>) => {
      for (let wait = await take(); wait > 0; wait = await take()) {
        if (!(await pause(wait))) throw new DeliveryStopped();
      }
      drawn = { bucket, at: clock.now(), intervalMs, burst };
    };
    const beforeCall = async (next: DeliveryMethod) => {
      await settle();
      method = next;
      if (entry.op === 'card') {
        // The card shows only its newest state: at most one edit per post interval, so a burst of progress does not
        // spend the workspace's edit budget on versions nobody sees.
        if (!(await pause((await store.cardNotBefore(channel, entry.threadTs)) - clock.now()))) throw new DeliveryStopped();
        await store.holdCard(channel, entry.threadTs, clock.now() + opts.minIntervalMs, clock.now());
      }
      if (next === 'chat.update') {
        // A channel's edits stay half a post interval apart: one busy thread cannot spend the workspace's budget in a
        // burst, and a worker with many threads spreads their edits instead of sending them all at once.
        if (!(await pause((lastEditAt.get(channel) ?? 0) + opts.minIntervalMs / 2 - clock.now()))) throw new DeliveryStopped();
        lastEditAt.set(channel, clock.now());
        await draw('edits', editInterval, editBurst, () => store.takeEditToken(clock.now(), editInterval, editBurst));
      } else {
        if (!(await pause((await store.notBefore(channel)) - clock.now()))) throw new DeliveryStopped();
        await draw({ channel }, opts.minIntervalMs, opts.postBurst, () => store.takePostToken(channel, clock.now(), opts.minIntervalMs, opts.postBurst));
      }
      if (lease.lost) throw new DeliveryStopped();
    };
    // A kept-in-place reply whose ts is stored is edited, which is safe to repeat: nothing to look for.
    let checkFirst = claimed.resumed && postsMessage(entry) && !(entry.op === 'upsert' && (await store.findMessageTs(channel, entry.threadTs, entry.key)));
    let failures = 0;
    for (let attempt = 0; ; attempt++) {
      if (!running || lease.lost) return false;
      // The channel's holds and pace are shared in Redis: they hold across workers.
      if (!(await pause((await store.heldUntil(channel)) - clock.now()))) return false;
      if (lease.lost) return false;
      if (checkFirst && postsMessage(entry)) {
        if (!(await pause((await store.notBefore(channel)) - clock.now()))) return false;
        let ts: string | undefined;
        try {
          ts = await findDelivered(client, entry);
        } catch (error) {
          const verdict = slackErrorVerdict(error, failures, opts.retry);
          const context = { ...describeEntry(entry), attempt: attempt + 1, reason: verdict.reason };
          if (verdict.action === 'retry' && !verdict.configuration) {
            if (verdict.backoff) failures++;
            await holdAll(verdict.afterMs);
            log.warn({ ...context, retryInMs: verdict.afterMs }, 'could not check whether Slack already has a post whose answer was lost; checking again before posting');
            continue;
          }
          // Slack will not tell (e.g. missing_scope: the app lacks channels:history / groups:history). Stalling the
          // thread would be worse than a possible duplicate: post it again.
          log.warn(context, 'could not check whether Slack already has a post whose answer was lost; posting it again, which may show it twice');
        }
        checkFirst = false;
        if (ts !== undefined && entry.op === 'upsert') {
          // Found the message an earlier version posted: record its ts and edit it to this version (below).
          await recordPosted(store, entry, ts);
          log.info({ ...describeEntry(entry), ts }, 'Slack already had the kept reply whose answer was lost; editing it instead of posting it again');
        } else if (ts !== undefined) {
          await recordPosted(store, entry, ts);
          await holdFor(opts.minIntervalMs);
          await store.complete(channel, raw);
          log.info({ ...describeEntry(entry), ts, attempts: attempt + 1 }, 'Slack already had the post whose answer was lost; recorded it instead of posting it again');
          return true;
        }
      }
      const progress: DeliveryProgress = { postSent: false };
      method = undefined;
      const sentAt = performance.now();
      try {
        await deliverEntry(client, store, entry, mode, progress, beforeCall);
        opts.metrics?.observeOutboxSendSeconds('ok', (performance.now() - sentAt) / 1000);
        // A post drew from the channel's bucket, an edit from the workspace's; each owes its transit as well.
        await settle();
        await store.complete(channel, raw);
        if (attempt > 0) log.info({ ...describeEntry(entry), attempts: attempt + 1 }, 'Slack accepted the post after retrying');
        return true;
      } catch (error) {
        if (error instanceof DeliveryStopped) return false;
        await settle().catch(() => undefined);
        const verdict = slackErrorVerdict(error, failures, opts.retry);
        opts.metrics?.observeOutboxSendSeconds(verdict.action, (performance.now() - sentAt) / 1000);
        if (verdict.action === 'retry' && verdict.backoff) failures++;
        if (progress.postSent && mayHaveTakenEffect(error)) checkFirst = true;
        if (verdict.action === 'retry') await holdAll(verdict.afterMs);
        else await holdFor(opts.minIntervalMs);
        const context = { ...describeEntry(entry), attempt: attempt + 1, reason: verdict.reason };
        if (verdict.action === 'retry') {
          log.warn({ ...context, retryInMs: verdict.afterMs }, 'Slack did not take the post; retrying it before anything later in this channel');
        } else if (verdict.action === 'plain-text' && !mode.plainText) {
          log.error(context, 'Slack refused the blocks of a thread message; sending it as plain text');
          mode.plainText = true;
        } else if (verdict.action === 'message-gone' && (entry.op === 'event' || entry.op === 'upsert') && !mode.postInsteadOfUpdate) {
          log.warn(context, 'the message to update is gone; posting it as a new reply');
          mode.postInsteadOfUpdate = true;
        } else {
          log.error(context, 'Slack refused a thread message for good; it is kept in the dead-letter list and skipped');
          await store.deadLetter(channel, raw, verdict.reason);
          return true;
        }
      }
    }
  }

  /** Drains one channel while holding its lease. Returns whether it did any work (false: another worker has it). */
  async function pump(channel: string): Promise<boolean> {
    const token = randomUUID();
    if (!(await store.acquireLock(channel, token, opts.lockTtlMs))) return false;
    const lease = { lost: false };
    const heartbeat = setInterval(() => {
      store.renewLock(channel, token, opts.lockTtlMs).then(
        (ok) => {
          if (!ok) lease.lost = true;
        },
        (error: unknown) => log.warn({ channel, err: error }, 'could not renew the outbox lease on a channel'),
      );
    }, Math.max(10, Math.floor(opts.lockTtlMs / 3)));
    try {
      while (running && !lease.lost) {
        const claimed = await store.claim(channel);
        if (claimed === undefined) break;
        const entry = parseOutboxEntry(claimed.raw);
        if (!entry) {
          log.error({ channel }, 'an outbox entry could not be read; it is kept in the dead-letter list and skipped');
          await store.deadLetter(channel, claimed.raw, 'unreadable entry');
          continue;
        }
        if (!(await deliver(channel, claimed, entry, lease))) break;
      }
    } finally {
      clearInterval(heartbeat);
      await store.releaseLock(channel, token).catch(() => undefined);
    }
    return true;
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        for (const channel of await store.busyChannels()) {
          if (pumps.has(channel)) continue;
          const work = pump(channel)
            .catch((error: unknown) => {
              log.error({ channel, err: error }, 'delivering a Slack channel outbox failed; will try again');
              return false;
            })
            .then((worked) => {
              pumps.delete(channel);
              // Look again at once: more may have been queued while the lease was being released.
              if (worked) wake();
            });
          pumps.set(channel, work);
        }
      } catch (error) {
        log.warn({ err: error }, 'could not read the Slack outbox from Redis; will try again');
      }
      await idle(opts.pollIntervalMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    wake,
    async close() {
      running = false;
      stop.abort();
      wake();
      await loop;
      await Promise.allSettled([...pumps.values()]);
    },
  };
}
