import type { Job, JobType, Queue } from 'bullmq';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../ports/clock.js';
import type { ThreadPort } from '../ports/slack/thread-port.js';
import type { ClusterLock, StartIntent } from './cluster-lock.js';
import * as say from '../report/control-messages.js';
import type { GateStore } from './gate-store.js';
import type { JobControlsStore } from './job-controls-store.js';
import { summarizeIntent, summarizeJob } from './job-summary.js';
import { jobSteps } from '../planning/planner/job-steps.js';
import { recordedKarpenterOriginals, type RecordedKarpenterClasses } from '../planning/karpenter-originals.js';
import type { TimelineLog } from './timeline-log.js';
import { exportTimeline } from './export-timeline.js';
import type { JobSummary, UpgradeControl } from '../ports/upgrade-control.js';
import { isTerminal, JOB_DATA_SCHEMA, statusCardOf, type UpgradeJobData } from '../planning/upgrade-job-data.js';
import type { StepKind } from '../ports/upgrade-plan.js';

/**
 * UpgradeControl over BullMQ + Redis. It never writes job.data (the processor owns it): starting takes the cluster
 * lock and enqueues; gate answers and pause / resume / abort go to their own Redis records, after which the parked
 * job is promoted so it notices at once.
 */
export interface QueueControlDeps {
  queue: Queue<UpgradeJobData>;
  lock: ClusterLock;
  gates: GateStore;
  controls: JobControlsStore;
  timeline: TimelineLog;
  thread: ThreadPort;
  clock: Clock;
  logger: Logger;
  ids: () => string;
  stepKinds: readonly StepKind[];
}

/** A lock whose job has not appeared after this long belongs to a start that crashed half-way. */
const INTENT_GRACE_MS = 2 * 60_000;
const ALL_STATES: JobType[] = ['active', 'waiting', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'];

export function createQueueUpgradeControl(deps: QueueControlDeps): UpgradeControl {
  const { queue, lock, gates, controls, clock } = deps;
  const stores = { gates, controls };

  const loadJob = async (jobId: string) => (await queue.getJob(jobId)) as Job<UpgradeJobData> | undefined;
  // Wakes a parked job; a job that is running (or waiting) already will see the change at its next safe point.
  const wake = async (jobId: string) => {
    try {
      await (await loadJob(jobId))?.promote();
    } catch {
      /* not delayed: nothing to do */
    }
  };

  async function activeSummary(jobId: string | undefined): Promise<JobSummary | undefined> {
    if (!jobId) return undefined;
    const job = await loadJob(jobId);
    if (job) {
      const summary = await summarizeJob(job, stores);
      return isTerminal(summary.state) ? undefined : summary;
    }
    const intent = await lock.intent(jobId);
    if (intent && clock.now() - intent.at < INTENT_GRACE_MS) return summarizeIntent(intent);
    return undefined;
  }

  async function claim(intent: StartIntent): Promise<JobSummary | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const holder = await lock.acquire(intent);
      if (holder === intent.jobId) return undefined;
      const running = await activeSummary(holder);
      if (running) return running;
      // The holder ended (or never got enqueued) without releasing: take its place if nobody else did meanwhile.
      if (await lock.takeOver(holder, intent)) return undefined;
    }
    throw new Error(`Starting the upgrade of ${intent.cluster}: the cluster lock kept changing hands; try again in a moment.`);
  }

  async function position(jobId: string) {
    const job = await loadJob(jobId);
    if (!job) return undefined;
    const summary = await summarizeJob(job, stores);
    return { job, summary, position: say.positionOf(job.data, summary.state, !!summary.openGate) };
  }

  return {
    async start(request, from, plan) {
      // The job runs the plan the requester was shown: its steps and their per-resource actions go into job.data.
      const { hops, steps } = jobSteps({ cluster: request.cluster, from, to: request.to, direction: request.rollback ? 'rollback' : 'upgrade', plan, kinds: deps.stepKinds });
      const jobId = deps.ids();
      const now = clock.now();
      const intent: StartIntent = {
        jobId, cluster: request.cluster, from, to: request.to, requestedBy: request.requestedBy, channel: request.channel, dryRun: request.dryRun, at: now,
      };
      const running = await claim(intent);
      if (running) return { ok: false, reason: 'already-running', job: running };

      const data: UpgradeJobData = {
        schema: JOB_DATA_SCHEMA, jobId, cluster: request.cluster, region: request.region, from, to: request.to, hops,
        requestedBy: request.requestedBy, channel: request.channel, thread: { channel: request.channel, ts: '' },
        dryRun: request.dryRun, startedAt: now, state: 'queued', steps, stepIndex: 0, stepRuns: {}, updates: {},
        stepState: {}, retries: {}, pauseSeq: 0, acted: {}, plannedAt: plan ? Date.parse(plan.generatedAt) : undefined,
        ...(request.rollback ? { rollback: { ...request.rollback, ...(await readRecordedOriginals(queue, deps.logger, request.cluster, from, request.rollback.fromJob)) } } : {}),
      };
      try {
        data.thread = await deps.thread.openThread(request.channel, statusCardOf(data, now));
        await queue.add('upgrade', data, { jobId, removeOnComplete: { count: 500 }, removeOnFail: { count: 500 } });
      } catch (error) {
        await lock.release(request.cluster, jobId);
        throw new Error(`Starting the upgrade of ${request.cluster} failed: ${(error as Error).message}. Nothing was changed; try again.`, { cause: error });
      }
      deps.logger.info({ jobId, cluster: request.cluster, from, to: request.to, dryRun: request.dryRun }, 'upgrade job enqueued');
      return { ok: true, job: (await activeSummary(jobId)) ?? summarizeIntent(intent) };
    },

    async getJob(jobId) {
      const job = await loadJob(jobId);
      return job ? summarizeJob(job, stores) : undefined;
    },

    async findActive(cluster) {
      return activeSummary(await lock.holder(cluster));
    },

    async listJobs(cluster, limit = 20) {
      const jobs = (await queue.getJobs(ALL_STATES, 0, 999)) as Array<Job<UpgradeJobData> | undefined>;
      const mine = jobs.filter((job): job is Job<UpgradeJobData> => !!job?.data && (!cluster || job.data.cluster === cluster));
      const unique = [...new Map(mine.map((job) => [job.data.jobId, job])).values()];
      unique.sort((a, b) => b.data.startedAt - a.data.startedAt);
      return Promise.all(unique.slice(0, limit).map((job) => summarizeJob(job, stores)));
    },

    async answerGate(answer) {
      const job = await loadJob(answer.jobId);
      if (!job) return { outcome: 'unknown-job' };
      const at = clock.now();
      const result = await gates.answer(answer.jobId, answer.gateId, answer.revision, { action: answer.action, by: answer.userId, at, reason: answer.reason });
      if (result.outcome !== 'accepted') return result;
      const record = await gates.read(answer.jobId, answer.gateId);
      if (record) {
        // Same key as the gate card: the thread updates that card at once (the job, parked, may take a moment).
        const key = `${answer.jobId}:${answer.gateId}:${answer.revision}`;
        const event = { kind: 'gate-answered' as const, at, gate: record.gate, action: answer.action, by: answer.userId, reason: answer.reason };
        await deps.timeline.append(answer.jobId, `${key}:answered`, event);
        await deps.thread.postEvent(job.data.thread, key, event);
      }
      await wake(answer.jobId);
      return result;
    },

    async pause(jobId, userId) {
      const found = await position(jobId);
      if (!found) return { ok: false, message: say.unknownJobMessage(jobId) };
      if (say.isFinished(found.summary.state)) return { ok: false, message: say.finishedMessage(found.position, 'pause') };
      if (!(await controls.pause(jobId, userId, clock.now()))) {
        return { ok: false, message: say.alreadyPausedMessage(found.position, (await controls.read(jobId)).pausedBy) };
      }
      await wake(jobId);
      return { ok: true, message: say.pauseMessage(found.position) };
    },

    async resume(jobId, userId) {
      const found = await position(jobId);
      if (!found) return { ok: false, message: say.unknownJobMessage(jobId) };
      if (say.isFinished(found.summary.state)) return { ok: false, message: say.finishedMessage(found.position, 'resume') };
      if (!(await controls.resume(jobId, userId, clock.now()))) return { ok: false, message: say.notPausedMessage(found.position) };
      await wake(jobId);
      return { ok: true, message: say.resumeMessage(found.position) };
    },

    async abort(jobId, userId) {
      const found = await position(jobId);
      if (!found) return { ok: false, message: say.unknownJobMessage(jobId) };
      if (say.isFinished(found.summary.state)) return { ok: false, message: say.finishedMessage(found.position, 'abort') };
      if (!(await controls.abort(jobId, userId, clock.now()))) {
        return { ok: false, message: say.alreadyAbortingMessage(found.position, (await controls.read(jobId)).abort?.by ?? 'someone') };
      }
      await wake(jobId);
      return { ok: true, message: say.abortMessage(found.position) };
    },

    async exportTimeline(jobId, userId) {
      const found = await position(jobId);
      if (!found) return { ok: false, message: say.unknownJobMessage(jobId) };
      const count = await exportTimeline(deps, found.summary, `${jobId}:timeline:${clock.now()}`);
      deps.logger.info({ jobId, user: userId, events: count }, 'timeline exported on demand');
      return { ok: true, message: `The timeline of ${found.summary.cluster}'s upgrade so far (${count} events) is being uploaded into its thread.` };
    },
  };
}

/**
 * For a rollback: what the upgrade it undoes recorded about the EC2NodeClasses before changing them (that job's data,
 * kept by BullMQ among the last 500 finished jobs). Best effort: without it the rollback uses SSM's N-1 AMI.
 *
 * The upgrade job is read among the active jobs too: it posts its summary and releases the cluster's lock before it
 * returns, and BullMQ moves it to the completed ones only after that, so a rollback asked for as soon as the summary
 * shows (the Roll back button on it) can find the job still active, its data already saying succeeded. Reading the
 * completed jobs alone, such a rollback found nothing recorded and left the pinned classes at the new images while
 * it reported success (test/e2e/rollback-karpenter-selectors.test.ts, once under a loaded suite).
 */
export async function readRecordedOriginals(queue: Queue<UpgradeJobData>, logger: Logger, cluster: string, version: string, fromJob?: string): Promise<{ karpenter?: RecordedKarpenterClasses }> {
  try {
    const jobs = (await queue.getJobs(['completed', 'active'], 0, 999)) as Array<Job<UpgradeJobData> | undefined>;
    const karpenter = recordedKarpenterOriginals(jobs.flatMap((job) => (job?.data ? [job.data] : [])), cluster, version, fromJob);
    return karpenter ? { karpenter } : {};
  } catch (error) {
    logger.warn({ err: error, cluster }, 'reading the upgrade jobs for the recorded EC2NodeClass terms failed; the rollback uses the N-1 AMI from SSM');
    return {};
  }
}
