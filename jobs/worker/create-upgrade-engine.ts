import { randomUUID } from 'node:crypto';
import type { Job, Worker } from 'bullmq';
import { noMetrics, type Metrics } from '../../src/ports/metrics.js';
import type { ClustersConfig } from '../../src/config/clusters-config.js';
import { DEFAULT_WORKER_CALLS_IN_FLIGHT, DEFAULT_WORKER_CONCURRENCY } from '../../src/config/env-config.js';
import { createLimiter } from '../../src/cluster-reader/bounded.js';
import type { Logger } from '../../src/log/logger.js';
import type { AuditLog } from '../../src/ports/audit-port.js';
import type { Clock } from '../../src/ports/clock.js';
import { createGuardEvaluationStore } from '../../src/store/guard-evaluation-store.js';
import { createRedisAuditLog } from '../../src/audit/redis-audit-log.js';
import type { AutoScalingPortFactory } from '../../src/ports/aws/autoscaling-port.js';
import type { Ec2PortFactory } from '../../src/ports/aws/ec2-port.js';
import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { KubePortFactory } from '../../src/ports/kube-port.js';
import type { SsmPortFactory } from '../../src/ports/aws/ssm-port.js';
import type { ThreadPort } from '../../src/ports/slack/thread-port.js';
import { finishJob } from './finish-job.js';
import { readJobData } from './job-data-schema.js';
import { createJobRuntime, type EngineDeps } from './job-runtime.js';
import { IMPLEMENTED_STEP_KINDS } from './step-registry.js';
import { createUpgradeProcessor } from './upgrade-processor.js';
import { createClusterLock } from '../../src/store/cluster-lock.js';
import { engineKeys, UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { createGateStore } from '../../src/store/gate-store.js';
import { createWaiverStore } from '../../src/waivers/store/redis-waiver-store.js';
import { createJobControlsStore } from '../../src/store/job-controls-store.js';
import { createQueueUpgradeControl } from '../../src/store/queue-upgrade-control.js';
import { createTimelineLog, type TimelineLog } from '../../src/store/timeline-log.js';
import type { UpgradeControl } from '../../src/ports/upgrade-control.js';
import { isTerminal, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { StepKind } from '../../src/ports/upgrade-plan.js';
import type { QueueKit } from '../../src/store/queue-kit.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';

/**
 * The upgrade engine: one BullMQ queue of upgrade jobs, the control the Slack surface drives, and (in worker
 * processes) the worker that runs them. Web-only processes use `control` and never call startWorker.
 */
export interface UpgradeEngineOptions {
  /** The entry point's Redis connections and BullMQ objects (src/store/queue-kit.ts); the engine's keys live under its prefix. */
  queues: QueueKit;
  config: ClustersConfig;
  eks: EksPortFactory;
  kube: KubePortFactory;
  ssm: SsmPortFactory;
  thread: ThreadPort;
  clock: Clock;
  logger: Logger;
  /** DescribeUpdate and similar follow loops poll at this interval (on `clock`). */
  pollIntervalMs: number;
  ids?: () => string;
  /** EC2 DescribeSubnets for the preflight's free-IP checks; without it those checks are reported as not run. */
  ec2?: Ec2PortFactory;
  /** EC2 Auto Scaling for self-managed node groups; without it their step says it cannot reach Auto Scaling. */
  autoScaling?: AutoScalingPortFactory;
  /** Step kinds new jobs plan (default: every kind this build implements), e.g. only the control plane for a demo. */
  stepKinds?: StepKind[];
  /** How long the audit trail keeps its records (default 400 days). */
  auditRetentionDays?: number;
  /** Worker lock tuning; the defaults suit production (tests shorten them to exercise stalled-job recovery). */
  worker?: { lockDurationMs?: number; stalledIntervalMs?: number };
  /** Step durations, gate waits and final states (default: not counted). */
  metrics?: Metrics;
  /** Reads clusters.yaml's guards while a job runs (issue 29); without it no guard is evaluated. */
  guards?: GuardReader;
  /** AWS and Kubernetes calls this process's upgrade jobs have in flight together (default DEFAULT_WORKER_CALLS_IN_FLIGHT). */
  callsInFlight?: number;
}

export interface UpgradeEngine {
  control: UpgradeControl;
  /** The durable audit trail, on the same fail-fast connection as the control side. */
  audit: AuditLog;
  /** Each job's timeline as the worker and the control side append it (a rehearsal's report is read from it). */
  timeline: Pick<TimelineLog, 'read'>;
  startWorker(opts?: { concurrency?: number }): Promise<void>;
  close(): Promise<void>;
}

/** A port whose every call fails with one sentence saying what was not wired. */
function notWired<T extends object>(what: string, option: string): () => T {
  const fail = async () => {
    throw new Error(`${what} is not wired into the upgrade engine (pass ${option} to createUpgradeEngine)`);
  };
  return () => new Proxy({} as T, { get: () => fail });
}
const ec2NotWired: Ec2PortFactory = notWired('EC2', 'ec2');
const autoScalingNotWired: AutoScalingPortFactory = notWired('EC2 Auto Scaling', 'autoScaling');

// A job killed during a long wait comes back as stalled; it may be killed again in a later step, so allow several.
const MAX_STALLED_COUNT = 10;
// Every wake-up from a gate, a pause or a backoff starts the job again; this bounds runaway loops, not real waits.
const MAX_STARTED_ATTEMPTS = 5_000;

export function createUpgradeEngine(opts: UpgradeEngineOptions): UpgradeEngine {
  const { queues } = opts;
  const { prefix } = queues;
  // Two connections with opposite failure modes. The worker's waits out a Redis outage (a step must not fail because
  // Redis restarted); the control side, which answers people, gives a command up after one failed reconnect, so a
  // command gets a sentence ("the job queue is unavailable") within seconds instead of hanging until Slack gives up.
  // Before the first connection, commands still wait for it (the offline queue stays on).
  const redis = queues.redis({ maxRetriesPerRequest: null });
  // Lost connections are logged once per outage by the workers' error handlers (src/log/redis-outage.ts); ioredis
  // would print a stack trace to stderr for each retry of a client without a listener.
  redis.on('error', () => undefined);
  const failFast = { maxRetriesPerRequest: 1, connectTimeout: 2_000 };
  const controlRedis = queues.redis(failFast);
  controlRedis.on('error', () => undefined); // reported where a command uses it; ioredis reconnects by itself
  const keys = engineKeys(prefix);
  const queue = queues.queue<UpgradeJobData>(UPGRADE_QUEUE, failFast);
  queue.on('error', () => undefined);
  const logger = opts.logger.child({ component: 'upgrade-engine' });
  const deps: EngineDeps = {
    config: opts.config,
    eks: opts.eks,
    kube: opts.kube,
    ssm: opts.ssm,
    ec2: opts.ec2 ?? ec2NotWired,
    autoScaling: opts.autoScaling ?? autoScalingNotWired,
    thread: opts.thread,
    clock: opts.clock,
    logger,
    pollIntervalMs: opts.pollIntervalMs,
    gates: createGateStore(redis, keys),
    // Read-only here: the preflight counts waivers approved in Slack; only the Slack surface creates them.
    waivers: createWaiverStore(redis, prefix, () => randomUUID()),
    controls: createJobControlsStore(redis, keys),
    timeline: createTimelineLog(redis, keys),
    lock: createClusterLock(redis, keys),
    metrics: opts.metrics ?? noMetrics,
    admitCall: createLimiter(opts.callsInFlight ?? DEFAULT_WORKER_CALLS_IN_FLIGHT),
    ...(opts.guards ? { guards: opts.guards, guardEvaluations: createGuardEvaluationStore(redis, prefix) } : {}),
  };
  const controlTimeline = createTimelineLog(controlRedis, keys);
  const control = createQueueUpgradeControl({
    queue,
    lock: createClusterLock(controlRedis, keys),
    gates: createGateStore(controlRedis, keys),
    controls: createJobControlsStore(controlRedis, keys),
    timeline: controlTimeline,
    thread: opts.thread,
    clock: opts.clock,
    logger,
    // BullMQ refuses custom job ids that look like integers ("Custom Id cannot be integers"), which 8 hex digits
    // sometimes are: a letter prefix keeps every id a string.
    ids: opts.ids ?? (() => `u${randomUUID().slice(0, 7)}`),
    stepKinds: opts.stepKinds?.filter((kind) => IMPLEMENTED_STEP_KINDS.includes(kind)) ?? IMPLEMENTED_STEP_KINDS,
  });

  const draining = new AbortController();
  let worker: Worker<UpgradeJobData> | undefined;

  // BullMQ can fail a job without our processor finishing it (started too many times): finish it here, so the
  // thread says so and the cluster lock is released.
  async function finishAbandoned(job: Job<UpgradeJobData> | undefined, error: Error): Promise<void> {
    if (!job?.data || isTerminal(job.data.state)) return;
    const fresh = ((await queue.getJob(job.id!)) as Job<UpgradeJobData> | undefined) ?? job;
    if (isTerminal(fresh.data.state) || !readJobData(fresh.data).ok) return;
    const runtime = createJobRuntime(fresh, deps);
    await finishJob(runtime, 'failed', `The upgrade job stopped: ${error.message}. Check the cluster with /eks-upgrade status, then start again; steps resume from the cluster's state.`);
  }

  return {
    control,
    audit: createRedisAuditLog(controlRedis, { prefix, clock: opts.clock, retentionDays: opts.auditRetentionDays }),
    timeline: { read: (jobId, from) => controlTimeline.read(jobId, from) },
    async startWorker(workerOpts = {}) {
      if (worker) return;
      worker = queues.worker<UpgradeJobData>(UPGRADE_QUEUE, createUpgradeProcessor(deps, draining.signal), { maxRetriesPerRequest: null }, {
        concurrency: workerOpts.concurrency ?? DEFAULT_WORKER_CONCURRENCY,
        lockDuration: opts.worker?.lockDurationMs ?? 30_000,
        stalledInterval: opts.worker?.stalledIntervalMs ?? 30_000,
        maxStalledCount: MAX_STALLED_COUNT,
        maxStartedAttempts: MAX_STARTED_ATTEMPTS,
      });
      worker.on('failed', (job, error) => {
        finishAbandoned(job, error).catch((err) => logger.error({ err, jobId: job?.id }, 'finishing a failed upgrade job'));
      });
      worker.on('error', (err) => logger.error({ err }, 'upgrade worker error'));
      await worker.waitUntilReady();
    },
    async close() {
      // Jobs in a follow loop park themselves when this fires, so closing never waits out a 10-minute update.
      draining.abort(new Error('upgrade worker shutting down'));
      await worker?.close();
      await queue.close();
      // Its Redis connections are the kit's: the entry point closes them once everything that uses them has stopped.
    },
  };
}
