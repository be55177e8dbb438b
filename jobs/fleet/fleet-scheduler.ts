/**
 * Fleet operations on a schedule (docs/fleet.md): one BullMQ job scheduler per `digests:` entry of
 * clusters.yaml (its cron pattern and time zone) and one hourly scheduler for support-deadline reminders, on the
 * `fleet` queue. BullMQ creates one job per tick (id `repeat:<scheduler>:<instant>`) and one worker takes it, so
 * several worker processes post each digest once; the tick's post is also claimed in Redis before it is sent, so a
 * job retried after a crash does not post again. Schedules are read on the bot's Clock through
 * clock-repeat-strategy.ts.
 */

import type { Job, Worker } from 'bullmq';
import type { ClusterConfig, ClustersConfig, DigestConfig } from '../../src/config/clusters-config.js';
import { findCluster } from '../../src/config/clusters-config.js';
import type { Logger } from '../../src/log/logger.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import type { UpgradeControl } from '../../src/ports/upgrade-control.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import { reminderThreshold } from '../../src/report/digest.js';
import { renderDigestMessage, renderReminder } from '../../src/report/blocks/render-digest-blocks.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { collectDigestRows } from '../../src/cluster-reader/collect-digest.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { clockRepeatStrategy } from '../worker/clock-repeat-strategy.js';
import type { QueueKit } from '../../src/store/queue-kit.js';

export const FLEET_QUEUE = 'fleet';
/** Reminders are checked at the top of every hour (UTC); each threshold is posted once per cluster and version. */
export const REMINDER_SCHEDULE = '0 * * * *';
const CLAIM_TTL_SECONDS = 400 * 24 * 3600;

type FleetJobData = { kind: 'digest'; channel: string; schedule: string; timezone: string } | { kind: 'reminders' };

export interface FleetSchedulerOptions {
  /** The entry point's Redis connections and BullMQ objects (src/store/queue-kit.ts); the claims live under its prefix. */
  queues: QueueKit;
  config: ClustersConfig;
  sources: SnapshotSources;
  control: Pick<UpgradeControl, 'findActive'>;
  poster: ChannelPoster;
  logger: Logger;
  waivers?: WaiverStore;
  /**
   * How long a digest or reminder waits for one cluster's read, in real time (default 20 s): a guard against an API
   * server that does not answer. Tests on a busy machine, where the simulator itself is starved, lengthen it.
   */
  readTimeoutMs?: number;
}

export interface FleetScheduler {
  /** Upserts the configured schedulers (and removes ones no longer configured), then starts the worker. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function digestSchedulerId(digest: Pick<DigestConfig, 'channel' | 'schedule' | 'timezone'>): string {
  return `digest:${digest.channel}:${digest.timezone}:${digest.schedule}`;
}

function threadUrlOf(job: { thread: { channel: string; ts: string } }): string {
  return `https://slack.com/archives/${job.thread.channel}/p${job.thread.ts.replace('.', '')}`;
}

export function createFleetScheduler(opts: FleetSchedulerOptions): FleetScheduler {
  const clock = opts.sources.clock;
  const settings = { repeatStrategy: clockRepeatStrategy(clock) };
  const { queues } = opts;
  const queue = queues.queue<FleetJobData>(FLEET_QUEUE, { maxRetriesPerRequest: null }, { settings });
  queue.on('error', () => undefined);
  const redis = queues.redis({ maxRetriesPerRequest: null });
  // Lost connections are logged once per outage by the workers' error handlers (src/log/redis-outage.ts); ioredis
  // would print a stack trace to stderr for each retry of a client without a listener.
  redis.on('error', () => undefined);
  const logger = opts.logger.child({ component: 'fleet' });
  let worker: Worker<FleetJobData> | undefined;

  const findActive = async (cluster: string) => {
    const job = await opts.control.findActive(cluster);
    return job && { jobId: job.jobId, state: job.state, from: job.from, to: job.to, currentStep: job.currentStep, threadUrl: threadUrlOf(job) };
  };

  /** Claims one post (tick × channel) in Redis; false when another attempt already made it. */
  async function claim(key: string): Promise<boolean> {
    return (await redis.set(`${queues.prefix}:fleet:posted:${key}`, String(clock.now()), 'EX', CLAIM_TTL_SECONDS, 'NX')) === 'OK';
  }
  async function release(key: string): Promise<void> {
    await redis.del(`${queues.prefix}:fleet:posted:${key}`);
  }

  async function postOnce(key: string, channel: string, message: SlackMessage): Promise<boolean> {
    if (!(await claim(key))) return false;
    try {
      await opts.poster.post(channel, message);
      return true;
    } catch (error) {
      await release(key); // the next attempt (BullMQ retry or the next tick) posts it
      throw error;
    }
  }

  async function runDigest(job: Job<FleetJobData>, data: Extract<FleetJobData, { kind: 'digest' }>): Promise<void> {
    const digest = (opts.config.digests ?? []).find((entry) => digestSchedulerId(entry) === digestSchedulerId(data));
    if (!digest) return void logger.warn({ scheduler: job.repeatJobKey }, 'digest tick for a schedule no longer in clusters.yaml ignored');
    const clusters = digest.clusters.map((name) => findCluster(opts.config, name)).filter((c): c is ClusterConfig => c !== undefined);
    const at = clock.now();
    const rows = await collectDigestRows(opts.sources, clusters, { findActive, waivers: opts.waivers, timeoutMs: opts.readTimeoutMs });
    const message = renderDigestMessage(rows, { at, timezone: digest.timezone, trigger: `Scheduled \`${digest.schedule}\` (${digest.timezone})` });
    const posted = await postOnce(`${job.id}`, digest.channel, message);
    logger.info({ channel: digest.channel, clusters: rows.length, tick: job.id, posted }, posted ? 'digest posted' : 'digest of this tick already posted');
  }

  async function runReminders(): Promise<void> {
    const now = clock.now();
    const due = opts.config.clusters.filter((cluster) => (cluster.reminders?.daysBefore ?? []).length > 0);
    if (due.length === 0) return;
    const rows = await collectDigestRows(opts.sources, due, { findActive, waivers: opts.waivers, timeoutMs: opts.readTimeoutMs });
    for (const row of rows) {
      const cluster = findCluster(opts.config, row.cluster)!;
      const threshold = reminderThreshold(row, cluster.reminders?.daysBefore ?? []);
      if (threshold === undefined) continue;
      const message = renderReminder(row, threshold, now);
      for (const channel of cluster.channels) {
        // Once per cluster, version, threshold and channel: a later tick or a retried job finds the claim.
        const posted = await postOnce(`reminder:${row.cluster}:${row.version}:${threshold}:${channel}`, channel, message);
        if (posted) logger.info({ cluster: row.cluster, threshold, daysLeft: row.standardDaysLeft, channel, at: now }, 'support reminder posted');
      }
    }
  }

  return {
    async start() {
      const wanted = new Set<string>();
      for (const digest of opts.config.digests ?? []) {
        const id = digestSchedulerId(digest);
        wanted.add(id);
        await queue.upsertJobScheduler(id, { pattern: digest.schedule, tz: digest.timezone }, {
          name: 'digest',
          data: { kind: 'digest', channel: digest.channel, schedule: digest.schedule, timezone: digest.timezone },
          opts: { removeOnComplete: 100, removeOnFail: 100, attempts: 3, backoff: { type: 'exponential', delay: 5_000 } },
        });
      }
      wanted.add('reminders');
      await queue.upsertJobScheduler('reminders', { pattern: REMINDER_SCHEDULE, tz: 'UTC' }, {
        name: 'reminders',
        data: { kind: 'reminders' },
        opts: { removeOnComplete: 100, removeOnFail: 100, attempts: 3, backoff: { type: 'exponential', delay: 5_000 } },
      });
      for (const scheduler of await queue.getJobSchedulers()) {
        if (!wanted.has(scheduler.key)) await queue.removeJobScheduler(scheduler.key);
      }
      worker = queues.worker<FleetJobData>(
        FLEET_QUEUE,
        async (job) => {
          if (job.data.kind === 'digest') await runDigest(job, job.data);
          else await runReminders();
        },
        { maxRetriesPerRequest: null },
        { concurrency: 2, settings },
      );
      worker.on('error', (err) => logger.error({ err }, 'fleet worker error'));
      worker.on('failed', (job, err) => logger.warn({ err, job: job?.id }, 'fleet job failed'));
      await worker.waitUntilReady();
    },
    async close() {
      await worker?.close();
      await queue.close();
    },
  };
}
