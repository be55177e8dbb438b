/**
 * Rehearsals asked for in Slack run in the workers: a BullMQ queue `rehearsal` (the bot's prefix) whose processor
 * runs rehearseUpgrade with the bot's real ports (reads only) and its thread port (the REHEARSAL thread). A worker
 * that dies mid-rehearsal leaves the job stalled; BullMQ hands it to another worker, which starts again from a fresh
 * snapshot and says so.
 */

import { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { findCluster, type ClustersConfig } from '../src/config/clusters-config.js';
import type { Logger } from '../src/log/logger.js';
import type { RehearsalQueue, RehearsalRequest, RehearsalStore } from '../src/ports/rehearsal-store.js';
import type { ThreadPort, ThreadRef } from '../src/ports/thread-port.js';
import type { SnapshotSources } from '../src/status/collect-snapshot.js';
import { rehearseUpgrade } from './rehearse-upgrade.js';

const QUEUE = 'rehearsal';

export function createRehearsalQueue(connection: { url: string }, prefix: string): RehearsalQueue & { close(): Promise<void> } {
  const queue = new Queue<RehearsalRequest>(QUEUE, { connection: { ...connection, maxRetriesPerRequest: 1 }, prefix });
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
  connection: { url: string };
  prefix: string;
  config: ClustersConfig;
  sources: SnapshotSources;
  thread: ThreadPort;
  store: RehearsalStore;
  logger: Logger;
}

export async function startRehearsalWorker(opts: RehearsalWorkerOptions): Promise<{ close(): Promise<void> }> {
  const worker = new Worker<RehearsalRequest>(
    QUEUE,
    async (job) => {
      const request = job.data;
      const cluster = findCluster(opts.config, request.cluster);
      const restarted = (job.attemptsStarted ?? 1) > 1 || (job.stalledCounter ?? 0) > 0;
      let thread: ThreadRef | undefined;
      const capture: ThreadPort = {
        ...opts.thread,
        openThread: async (channel, card) => (thread = await opts.thread.openThread(channel, card)),
        updateStatusCard: (ref, card) => opts.thread.updateStatusCard(ref, card),
        postEvent: (ref, key, event) => opts.thread.postEvent(ref, key, event),
        uploadMarkdown: (ref, key, filename, title, content) => opts.thread.uploadMarkdown(ref, key, filename, title, content),
      };
      const report = await rehearseUpgrade({
        sources: opts.sources,
        cluster: { name: request.cluster, region: request.region, roleArn: cluster?.roleArn, config: cluster },
        to: request.to,
        answers: request.answers,
        redisUrl: opts.connection.url,
        prefix: opts.prefix,
        logger: opts.logger,
        thread: capture,
        channel: request.channel,
        requestedBy: request.requestedBy,
        store: opts.store,
      });
      if (thread) {
        const lines = restarted ? ['The worker running this rehearsal stopped; it started again from a fresh snapshot of the cluster.', ...report.lines] : report.lines;
        await opts.thread.postEvent(thread, `rehearsal-${job.id}-report`, { kind: 'note', at: Date.now(), level: report.state === 'succeeded' ? 'info' : 'warning', text: `REHEARSAL report\n${lines.join('\n')}` });
      }
      return report.state;
    },
    { connection: { ...opts.connection, maxRetriesPerRequest: null }, prefix: opts.prefix, concurrency: 1, lockDuration: 30_000, maxStalledCount: 3 },
  );
  worker.on('error', (err) => opts.logger.error({ err }, 'rehearsal worker error'));
  worker.on('failed', (job, err) => opts.logger.warn({ err, rehearsal: job?.id }, 'rehearsal failed'));
  await worker.waitUntilReady();
  return { close: () => worker.close() };
}
