/**
 * Rehearsals asked for in Slack run in the workers: a BullMQ queue `rehearsal` (the bot's prefix) whose processor
 * runs rehearseUpgrade with the bot's real ports (reads only) and its thread port (the REHEARSAL thread). A worker
 * that dies mid-rehearsal leaves the job stalled; BullMQ hands it to another worker, which starts again from a fresh
 * snapshot and says so.
 */

import { randomUUID } from 'node:crypto';
import { findCluster, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { Logger } from '../../src/log/logger.js';
import type { RehearsalQueue, RehearsalRequest, RehearsalStore } from '../../src/ports/rehearsal-store.js';
import type { ThreadPort, ThreadRef } from '../../src/ports/slack/thread-port.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import type { StepMessageModel } from '../../src/ports/timeline-event.js';
import { dropKeys, rehearseUpgrade, type TwinPortsFactory } from './rehearse-upgrade.js';
import type { QueueKit } from '../../src/store/queue-kit.js';

const QUEUE = 'rehearsal';

export function createRehearsalQueue(queues: QueueKit): RehearsalQueue & { close(): Promise<void> } {
  const queue = queues.queue<RehearsalRequest>(QUEUE, { maxRetriesPerRequest: 1 });
  queue.on('error', () => undefined);
  return {
    async enqueue(request) {
      const id = `r${randomUUID().slice(0, 7)}`;
      await queue.add('rehearse', request, { jobId: id, removeOnComplete: 100, removeOnFail: 100 });
      return id;
    },
    close: () => queue.close(),
  };
}

export interface RehearsalWorkerOptions {
  /** The entry point's Redis connections and BullMQ objects (src/store/queue-kit.ts). */
  queues: QueueKit;
  /** Builds the rehearsal engine's adapters once its twin runs (src/wiring/twin-ports.ts). */
  twinPorts: TwinPortsFactory;
  config: ClustersConfig;
  sources: SnapshotSources;
  thread: ThreadPort;
  store: RehearsalStore;
  logger: Logger;
  /**
   * BullMQ lock of a running rehearsal and how often stalled ones are looked for (default 30 s and 30 s): a worker
   * that dies holds its rehearsal until the lock expires, then another worker starts it again.
   */
  worker?: { lockDurationMs?: number; stalledIntervalMs?: number };
}

/**
 * What an attempt leaves in the job for the next one, should its worker die: the REHEARSAL thread (the next
 * attempt goes on in it), its engine's Redis prefix (dropped by the next attempt) and the step message it was on
 * (marked stopped, so the thread does not show a step running for ever).
 */
interface RehearsalAttempt {
  thread?: ThreadRef;
  enginePrefix?: string;
  step?: { key: string; message: StepMessageModel };
  attempts?: number;
}

type RehearsalJobData = RehearsalRequest & RehearsalAttempt;

export async function startRehearsalWorker(opts: RehearsalWorkerOptions): Promise<{ close(): Promise<void> }> {
  const { queues } = opts;
  const { prefix } = queues;
  // Drops a dead attempt's engine keys; fails fast, as the attempt goes on without it.
  const redis = queues.redis({ maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  const worker = queues.worker<RehearsalJobData>(
    QUEUE,
    async (job) => {
      const request = job.data;
      const cluster = findCluster(opts.config, request.cluster);
      const previous: RehearsalAttempt = { thread: request.thread, enginePrefix: request.enginePrefix, step: request.step };
      const attempt = (request.attempts ?? 0) + 1;
      const restarted = attempt > 1 || (job.attemptsStarted ?? 1) > 1 || (job.stalledCounter ?? 0) > 0;
      const enginePrefix = `${prefix}-rehearsal-${job.id}-${attempt}`;
      const save = (patch: RehearsalAttempt) => job.updateData({ ...job.data, ...patch }).catch((err: Error) => opts.logger.warn({ err, rehearsal: job.id }, 'rehearsal attempt not saved'));
      await save({ enginePrefix, attempts: attempt, step: undefined });
      // The dead attempt's engine (queue, job, gates) is of no use: its twin simulator died with its worker.
      if (previous.enginePrefix) await dropKeys(redis, previous.enginePrefix).catch(() => undefined);
      let thread: ThreadRef | undefined = previous.thread;
      let savedAt = 0;
      const restartNote = async (ref: ThreadRef, at: number) => {
        if (previous.step) {
          const { key, message } = previous.step;
          await opts.thread.upsertStepMessage(ref, key, { ...message, state: 'aborted', progress: undefined, summary: `The worker running the rehearsal stopped during this step${message.progress ? ` (last: ${message.progress})` : ''}.` });
        }
        await opts.thread.postEvent(ref, `rehearsal-${job.id}-restart-${attempt}`, {
          kind: 'note',
          at,
          level: 'warning',
          text: 'REHEARSAL · The worker running this rehearsal stopped; it starts again from a fresh snapshot of the cluster (the steps below are the new run).',
        });
      };
      const capture: ThreadPort = {
        ...opts.thread,
        openThread: async (channel, card) => {
          if (thread) {
            // Started again: the new run goes on in the same REHEARSAL thread, under the same card.
            await opts.thread.updateStatusCard(thread, card);
          } else {
            thread = await opts.thread.openThread(channel, card);
            await save({ thread });
          }
          // (at the twin's time, as every other post of the thread)
          if (restarted) await restartNote(thread, card.updatedAt);
          return thread;
        },
        updateStatusCard: (ref, card) => opts.thread.updateStatusCard(ref, card),
        postEvent: (ref, key, event) => opts.thread.postEvent(ref, key, event),
        upsertStepMessage: async (ref, key, message, dedupeKey) => {
          // The step this attempt is on, kept as it reads (a new step at once, its progress every few seconds).
          if (message.state === 'running' && (job.data.step?.key !== key || Date.now() - savedAt > 3_000)) {
            savedAt = Date.now();
            await save({ step: { key, message } });
          } else if (message.state !== 'running' && job.data.step?.key === key) {
            // Ended: nothing to mark stopped should the worker die before the next step starts.
            await save({ step: undefined });
          }
          await opts.thread.upsertStepMessage(ref, key, message, dedupeKey);
        },
        uploadMarkdown: (ref, key, filename, title, content) => opts.thread.uploadMarkdown(ref, key, filename, title, content),
      };
      const report = await rehearseUpgrade({
        sources: opts.sources,
        cluster: { name: request.cluster, region: request.region, roleArn: cluster?.roleArn, config: cluster },
        to: request.to,
        answers: request.answers,
        queues,
        twinPorts: opts.twinPorts,
        prefix,
        enginePrefix,
        logger: opts.logger,
        thread: capture,
        channel: request.channel,
        requestedBy: request.requestedBy,
        store: opts.store,
      });
      if (thread) {
        const lines = restarted ? [...report.lines, '', `Its worker stopped during the rehearsal; this report is of attempt ${attempt}, started again from a fresh snapshot.`] : report.lines;
        await opts.thread.postEvent(thread, `rehearsal-${job.id}-report`, { kind: 'note', at: Date.now(), level: report.state === 'succeeded' ? 'info' : 'warning', text: `REHEARSAL report\n${lines.join('\n')}` });
      }
      return report.state;
    },
    { maxRetriesPerRequest: null },
    {
      concurrency: 1,
      lockDuration: opts.worker?.lockDurationMs ?? 30_000,
      stalledInterval: opts.worker?.stalledIntervalMs ?? 30_000,
      maxStalledCount: 3,
    },
  );
  worker.on('error', (err) => opts.logger.error({ err }, 'rehearsal worker error'));
  worker.on('failed', (job, err) => opts.logger.warn({ err, rehearsal: job?.id }, 'rehearsal failed'));
  await worker.waitUntilReady();
  return { close: () => worker.close() };
}
