import type { Metrics } from '../../src/ports/metrics.js';
import type { Job } from 'bullmq';
import { defaultClusterConfig, findCluster, type ClusterConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { Logger } from '../../src/log/logger.js';
import type { Clock } from '../../src/ports/clock.js';
import type { AutoScalingPortFactory } from '../../src/ports/aws/autoscaling-port.js';
import type { Ec2PortFactory } from '../../src/ports/aws/ec2-port.js';
import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { KubePort, KubePortFactory } from '../../src/ports/kube-port.js';
import type { SsmPortFactory } from '../../src/ports/aws/ssm-port.js';
import type { ThreadPort } from '../../src/ports/slack/thread-port.js';
import type { ClusterLock } from '../../src/ports/cluster-lock.js';
import type { GateStore } from '../../src/ports/gate-store.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import type { JobControlsStore } from '../../src/ports/job-controls.js';
import type { StepContext } from '../engine/step-context.js';
import type { TimelineLog } from '../../src/ports/timeline-log.js';
import type { StepMessageModel, TimelineEvent, UpgradeState } from '../../src/ports/timeline-event.js';
import { readJobData } from './job-data-schema.js';
import { guardGateLines, guardsApply, haltingGuards, watchGuards } from './guard-watch.js';
import { statusCardOf, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedStep } from '../../src/ports/upgrade-plan.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';
import type { GuardEvaluationStore } from '../../src/ports/guards/guard-evaluations.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import type { Limiter } from '../../src/cluster-reader/bounded.js';

/**
 * What one run of the processor works with: the job, its data (written back with job.updateData), and the
 * engine's collaborators. It builds the StepContext steps see and owns the three ways the job talks to the
 * world: saving its data, updating the status card, and appending + posting timeline events.
 */
export interface EngineDeps {
  config: ClustersConfig;
  eks: EksPortFactory;
  kube: KubePortFactory;
  ssm: SsmPortFactory;
  ec2: Ec2PortFactory;
  autoScaling: AutoScalingPortFactory;
  thread: ThreadPort;
  clock: Clock;
  logger: Logger;
  pollIntervalMs: number;
  gates: GateStore;
  waivers?: WaiverStore;
  controls: JobControlsStore;
  timeline: TimelineLog;
  lock: ClusterLock;
  metrics: Metrics;
  /** Reads the guards of clusters.yaml (issue 29); without it no guard is evaluated. */
  guards?: GuardReader;
  /** Where each guard's last evaluation is recorded for `status` (jobs/worker/guard-watch.ts). */
  guardEvaluations?: GuardEvaluationStore;
  /**
   * Admits each AWS and Kubernetes call of every job of this process (createUpgradeEngine: at most `callsInFlight`
   * at once). Without it calls go out as they come. A call waits only for other single calls, never for a step, so
   * no job can hold another up for longer than a call takes.
   */
  admitCall?: Limiter;
}

export interface JobRuntime {
  job: Job<UpgradeJobData>;
  data: UpgradeJobData;
  deps: EngineDeps;
  clusterConfig: ClusterConfig;
  save(): Promise<void>;
  card(): Promise<void>;
  /**
   * Appends to the timeline (every event: the export is the complete record) and shows it in the thread: step
   * lifecycle events (step-started, progress, step-finished, step-failed) edit the step's one message in place, a
   * failure is also its own reply (people answer it), everything else is its own reply.
   */
  emitKeyed(threadKey: string, logKey: string, event: TimelineEvent): Promise<void>;
  /** Shows a step's message as the job data has it now (e.g. aborted), once per `dedupeKey`. */
  showStep(step: PlannedStep, at: number, dedupeKey?: string, progress?: string): Promise<void>;
  contextFor(step: PlannedStep, signal: AbortSignal): StepContext;
  /**
   * The job's controls as steps see them: the guards due are evaluated first (jobs/worker/guard-watch.ts), and a guard's
   * hold reads as a pause, so every step stops at its next safe point exactly as for the Pause button.
   */
  controls(): Promise<JobControls>;
  /**
   * What the current run of a step got done before it failed: how many AWS / Kubernetes calls succeeded and since
   * when (the bot's clock). The processor calls `restart()` as a step run begins; a transient failure after real
   * headway starts the step's retry count again instead of adding to it (handleFailure).
   */
  headway: { restart(): void; successes(): number; since(): number };
}

/**
 * The port as a job uses it: each call admitted by `admit` (the process's bound on calls in flight), and every call
 * that resolves counted (one that succeeded, after the SDK's or client's own retries). Every port method returns a
 * promise for one call (a paged list, a watch's first list), so a slot is held for one call at most.
 */
function portForJob<T extends object>(port: T, admit: Limiter, succeeded: () => void): T {
  return new Proxy(port, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      return function admitted(this: unknown, ...args: unknown[]) {
        const result = admit(async () => (value as (...a: unknown[]) => unknown).apply(target, args));
        result.then(succeeded, () => undefined);
        return result;
      };
    },
  });
}

const unbounded: Limiter = (task) => task();

/**
 * Sleeps on the clock, rejecting when `signal` fires. Each sleep gets a throwaway child signal: a Clock that leaves
 * its abort listener behind (not every one removes it) then leaks nothing onto the run's signal, and a signal that
 * fired before the sleep began is honoured even by a Clock that only listens for future aborts.
 */
async function abortableSleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason ?? new Error('aborted');
  const child = new AbortController();
  const forward = () => child.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  try {
    await clock.sleep(ms, child.signal);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}

/** A cluster removed from clusters.yaml while its job runs keeps going with safe defaults (no gate timeout). */
function clusterConfigFor(config: ClustersConfig, data: UpgradeJobData): ClusterConfig {
  return findCluster(config, data.cluster) ?? defaultClusterConfig({ name: data.cluster, region: data.region, roleArn: data.roleArn, channels: [data.channel] });
}

/** The thread key of a step's one message. */
export function stepMessageKey(jobId: string, stepId: string): string {
  return `${jobId}:${stepId}:message`;
}

/** A step's message as the job data says it is at `at`: running (with `progress`) or ended with its outcome. */
export function stepMessageOf(data: UpgradeJobData, step: Pick<PlannedStep, 'id' | 'title'>, at: number, progress?: string, error?: string): StepMessageModel {
  const run = data.stepRuns[step.id];
  const startedAt = run?.startedAt ?? at;
  const base = { step: step.id, title: step.title, startedAt, at };
  if (error !== undefined) return { ...base, state: 'failed', durationMs: Math.max(0, at - startedAt), error };
  if (run?.outcome === undefined) return { ...base, state: 'running', ...(progress ? { progress } : {}) };
  const durationMs = run.durationMs ?? Math.max(0, (run.finishedAt ?? at) - startedAt);
  return { ...base, at: run.finishedAt ?? at, state: run.outcome, durationMs, ...(run.summary ? { summary: run.summary } : {}) };
}

/** Throws when the job's data has a shape this build cannot read (the processor checks readJobData first). */
export function createJobRuntime(job: Job<UpgradeJobData>, deps: EngineDeps): JobRuntime {
  const reading = readJobData(job.data);
  if (!reading.ok) throw new Error(reading.reason);
  const data: UpgradeJobData = reading.data;
  const clusterConfig = clusterConfigFor(deps.config, data);
  const target = { name: data.cluster, region: data.region, roleArn: data.roleArn ?? clusterConfig.roleArn };
  let successes = 0;
  let since = deps.clock.now();
  const succeeded = () => {
    successes += 1;
  };
  const admit = deps.admitCall ?? unbounded;
  const eks = portForJob(deps.eks(target), admit, succeeded);
  const ssm = portForJob(deps.ssm(target), admit, succeeded);
  const ec2 = portForJob(deps.ec2(target), admit, succeeded);
  const autoScaling = portForJob(deps.autoScaling(target), admit, succeeded);
  let kube: Promise<KubePort> | undefined;

  /** The step the job is on and that has not ended: the one whose message shows progress. */
  const isRunning = (stepId: string) => data.steps[data.stepIndex]?.id === stepId && data.stepRuns[stepId]?.outcome === undefined;
  const titleOf = (stepId: string) => data.steps.find((step) => step.id === stepId)?.title ?? stepId;
  const runtime: JobRuntime = {
    job,
    data,
    deps,
    clusterConfig,
    headway: {
      restart() {
        successes = 0;
        since = deps.clock.now();
      },
      successes: () => successes,
      since: () => since,
    },
    save: () => job.updateData(structuredClone(data)),
    card: () => deps.thread.updateStatusCard(data.thread, statusCardOf(data, deps.clock.now())),
    async emitKeyed(threadKey, logKey, event) {
      await deps.timeline.append(data.jobId, logKey, event);
      switch (event.kind) {
        case 'step-started':
          // A gate's own card is what people answer: its step message ("✅ approval … approved by") comes after the
          // card, when the gate is answered, not above it as a "started" line (issue 25).
          if (data.steps.find((planned) => planned.id === event.step)?.kind === 'gate') return;
          return deps.thread.upsertStepMessage(data.thread, stepMessageKey(data.jobId, event.step), stepMessageOf(data, { id: event.step, title: event.title }, event.at), threadKey);
        case 'step-finished':
          return deps.thread.upsertStepMessage(data.thread, stepMessageKey(data.jobId, event.step), stepMessageOf(data, { id: event.step, title: event.title }, event.at), threadKey);
        case 'progress':
          // Progress of a step that has ended (budgets put back later by another step, a cleanup) is its own reply:
          // the step's message already says how the step ended.
          if (!isRunning(event.step)) {
            return deps.thread.postEvent(data.thread, threadKey, event);
          }
          // The step's message and the status card show the same line.
          await deps.thread.upsertStepMessage(data.thread, stepMessageKey(data.jobId, event.step), stepMessageOf(data, { id: event.step, title: titleOf(event.step) }, event.at, event.text), threadKey);
          if (data.progress !== event.text) {
            data.progress = event.text;
            await runtime.card();
          }
          return;
        case 'step-failed':
          await deps.thread.upsertStepMessage(data.thread, stepMessageKey(data.jobId, event.step), stepMessageOf(data, { id: event.step, title: event.title }, event.at, undefined, event.error), threadKey);
          return deps.thread.postEvent(data.thread, threadKey, event);
        default:
          return deps.thread.postEvent(data.thread, threadKey, event);
      }
    },
    async controls() {
      await watchGuards(runtime);
      const controls = await deps.controls.read(data.jobId);
      const hold = data.guards?.hold;
      if (!hold || controls.paused) return controls;
      return { ...controls, paused: true, pausedBy: `guard ${hold.guards.map((name) => `"${name}"`).join(', ')}`, pausedAt: hold.since };
    },
    showStep: (step, at, dedupeKey, progress) =>
      deps.thread.upsertStepMessage(data.thread, stepMessageKey(data.jobId, step.id), stepMessageOf(data, step, at, progress), dedupeKey),
    contextFor(step, signal) {
      const stepState = () => (data.stepState[step.id] ??= {});
      const ctx: StepContext = {
        data,
        step,
        clusterConfig,
        eks,
        ssm,
        ec2,
        autoScaling,
        clock: deps.clock,
        logger: deps.logger.child({ jobId: data.jobId, cluster: data.cluster, step: step.id }),
        pollIntervalMs: deps.pollIntervalMs,
        gates: deps.gates,
        waivers: deps.waivers,
        metrics: deps.metrics,
        kube() {
          // A failed build (cluster unreachable) is not cached: the next call tries again.
          kube ??= deps.kube(target).then((port) => portForJob(port, admit, succeeded), (error) => {
            kube = undefined;
            throw error;
          });
          return kube;
        },
        emit: (suffix, event) => runtime.emitKeyed(`${data.jobId}:${step.id}:${suffix}`, `${data.jobId}:${step.id}:${suffix}`, event),
        emitKeyed: (threadKey, logKey, event) => runtime.emitKeyed(threadKey, logKey, event),
        showMessage: (suffix, message) => deps.thread.upsertStepMessage(data.thread, `${data.jobId}:${step.id}:${suffix}`, message),
        record: async (suffix, event) => {
          await deps.timeline.append(data.jobId, `${data.jobId}:${step.id}:${suffix}`, event);
        },
        async setProgress(text) {
          if (data.progress === text) return;
          data.progress = text;
          await runtime.card();
          // The step's message shows the same line (its edits are rate-limited by the thread).
          if (text && isRunning(step.id)) await runtime.showStep(step, deps.clock.now(), undefined, text);
        },
        async setState(state: UpgradeState) {
          if (data.state === state) return;
          data.state = state;
          await runtime.save();
          await runtime.card();
        },
        stepState: <T extends Record<string, unknown>>() => stepState() as Partial<T>,
        async saveStepState(patch) {
          Object.assign(stepState(), patch);
          await runtime.save();
        },
        async recordUpdate(name, update) {
          (data.updates[step.id] ??= {})[name] = update;
          await runtime.save();
        },
        recordedUpdate: (name) => data.updates[step.id]?.[name],
        recordActed(acted) {
          (data.acted[step.id] ??= {})[`${acted.resource} ${acted.action}${acted.to ? ` ${acted.to}` : ''}`] = acted;
        },
        controls: () => runtime.controls(),
        guards: () => ({ lines: guardGateLines(runtime), halting: haltingGuards(runtime).map((guard) => guard.name), applies: guardsApply(runtime) }),
        refreshGuards: () => watchGuards(runtime, { all: true }),
        sleep: (ms) => abortableSleep(deps.clock, ms, signal),
      };
      return ctx;
    },
  };
  return runtime;
}
