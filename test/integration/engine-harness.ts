import { spawn, type ChildProcess } from 'node:child_process';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { findCluster, parseClustersConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { createLogger } from '../../src/log/logger.js';
import type { Queue } from 'bullmq';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { systemClock, type Clock } from '../../src/ports/clock.js';
import { loadIamPolicyFile, startSimulator, TWIN_LOOP_GAP_MS, type SimServer } from '@eks-upgrade-bot/sim';
import { createUpgradeEngine, type UpgradeEngine, type UpgradeEngineOptions } from '../../jobs/worker/create-upgrade-engine.js';
import type { JobSummary, StartRequest, StartResult, UpgradeControl } from '../../src/ports/upgrade-control.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import type { GateAction, GateModel } from '../../src/ports/timeline-event.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { planFor } from '../../commands/start.js';
import { createRecordingThreadPort, type RecordingThreadPort } from '../support/recording-thread-port.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';
import { builtEntry } from '../support/built-entry.js';

/**
 * The engine wired as in production — real SDK, real client-node, real BullMQ on a real Redis — against the
 * simulator over HTTP, with a recording thread. Each harness has its own queue prefix; engines made from one
 * harness share the queue, so a test can close one "worker process" and start another.
 */
export interface EngineHarness {
  sim: SimServer;
  thread: RecordingThreadPort;
  prefix: string;
  /** The harness's Redis connections and BullMQ objects (src/store/queue-kit.ts), closed by close(). */
  queues: QueueKit;
  engine(overrides?: Partial<UpgradeEngineOptions>): UpgradeEngine;
  request(overrides?: Partial<StartRequest>): StartRequest;
  /** The plan `/eks-upgrade start` would hand the engine for this request: the simulated cluster read now (commands/start.ts). */
  plan(request: StartRequest, from: string): Promise<UpgradePlan>;
  /**
   * Starts a job the way `/eks-upgrade start` does: with the plan read from the simulated cluster now, so the job
   * runs exactly the plan's steps and actions. (`control.start` without a plan is the "decide from the world" path,
   * which only jobs queued before plans existed still take; see engine-job-schema.test.ts.)
   */
  start(control: UpgradeControl, request: StartRequest, from: string): Promise<StartResult>;
  /** The read side the bot's `plan` and `start` use, over the same simulator. */
  sources: SnapshotSources;
  /** Mutating calls the simulator received, e.g. calls('UpdateClusterVersion'). */
  calls(operation: string): Array<{ operation: string; cluster?: string; error?: string }>;
  /**
   * Resolves once BullMQ holds the job as delayed: the worker let go of it (a pause, a gate or a backoff parked it),
   * so none of its code runs until something promotes it. What a test waits for before "nothing happened meanwhile".
   */
  parked(jobId: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const demoConfig: ClustersConfig = parseClustersConfig({
  clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }],
});

export const DEPLOY_IAM_POLICY = loadIamPolicyFile('deploy/iam/permissions-policy.json');

export async function startEngineHarness(opts: {
  scenario?: string | object;
  speed?: number;
  config?: ClustersConfig;
  stepKinds?: UpgradeEngineOptions['stepKinds'];
  /** 'sim': the engine runs on the simulator's clock, so its waits and backoffs pass at the simulator's speed. */
  clock?: 'system' | 'sim';
  /**
   * The SDK attempts of the harness's own reads (`sources`, the plan read), which have no engine retrying them
   * (default 2, as the engine's). demo-throttled throttles 30% of calls: a read of dozens of calls needs more.
   */
  readAttempts?: number;
  /** The IAM policy the simulator enforces on every caller (default deploy/'s). */
  iamPolicy?: ReturnType<typeof loadIamPolicyFile>;
} = {}): Promise<EngineHarness> {
  // The engine runs under the IAM policy deploy/ ships, as in the end-to-end stacks: an AWS call the job makes that
  // the policy does not allow fails the test with the service's AccessDenied sentence.
  // On the simulator's clock, real time in which this process did not get to run does not count (as for a rehearsal's
  // twin, src/sim/twin/start-twin.ts): at 600× a second held up is ten simulated minutes, in which a remedy's
  // 10-minute wait for a deployment ran out while neither the world nor the job could move (plan-equals-job-karpenter,
  // beside a second suite at load 12, 7 December).
  const loopGapMs = opts.clock === 'sim' ? TWIN_LOOP_GAP_MS : undefined;
  const sim = await startSimulator({ scenario: opts.scenario ?? 'demo', port: 0, host: '127.0.0.1', speed: opts.speed ?? 600, loopGapMs, iamPolicy: opts.iamPolicy ?? DEPLOY_IAM_POLICY });
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  /** The AWS and Kubernetes ports on the simulator, their SDK clients making `maxAttempts` attempts. */
  const portsWith = (maxAttempts: number) => {
    const aws = { endpoint: sim.url, credentials, maxAttempts };
    const eks = createEksPortFactory(aws);
    return { eks, ssm: createSsmPortFactory(aws), ec2: createEc2PortFactory(aws), autoScaling: createAutoScalingPortFactory(aws), kube: createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 'sim' }) }) };
  };
  const { eks, ssm, ec2, autoScaling, kube } = portsWith(2);
  const thread = createRecordingThreadPort();
  latestThread = thread;
  const prefix = freshPrefix('engine');
  const engines: UpgradeEngine[] = [];
  const logger = createLogger({ level: process.env.ENGINE_TEST_LOG ?? 'silent' });
  let queue: Queue | undefined;
  // The connections and BullMQ objects of every engine of this harness, as the bot's entry point owns them.
  const queues = createQueueKit({ url: redisUrl }, prefix);
  const clock: Clock = opts.clock === 'sim' ? sim.world.clock : systemClock;
  // Polls 50 wall ms apart either way. On the simulator's clock a poll interval is simulated time: 50 ms of it would
  // pass in a tenth of a real millisecond and the job would poll AWS in a loop (at 1,200× every throttled call of
  // demo-throttled then waits out the SDK's real-time retry delay, about half a second each).
  const pollIntervalMs = opts.clock === 'sim' ? 50 * sim.world.clock.speed : 50;
  const reads = opts.readAttempts ? portsWith(opts.readAttempts) : { eks, ssm, ec2, autoScaling, kube };
  const sources: SnapshotSources = { ...reads, clock };
  const plan = (request: StartRequest, from: string): Promise<UpgradePlan> => {
    const cluster = findCluster(opts.config ?? demoConfig, request.cluster);
    if (!cluster) throw new Error(`the harness's clusters.yaml has no cluster ${request.cluster}`);
    return planFor(sources, cluster, from, request.to);
  };
  return {
    sim,
    thread,
    prefix,
    queues,
    sources,
    engine(overrides = {}) {
      const engine = createUpgradeEngine({
        queues, config: opts.config ?? demoConfig, eks, kube, ssm, ec2, autoScaling, thread,
        clock, logger, pollIntervalMs, stepKinds: opts.stepKinds, ...overrides,
      });
      engines.push(engine);
      return engine;
    },
    request: (overrides = {}) => ({ cluster: 'demo', region: 'us-west-2', to: '1.31', requestedBy: 'U0REQ', channel: 'C0DEMO', dryRun: false, ...overrides }),
    plan,
    start: async (control, request, from) => control.start(request, from, await plan(request, from)),
    calls: (operation) => sim.world.calls.filter((call) => call.operation === operation),
    async parked(jobId, timeoutMs = 20_000) {
      queue ??= queues.queue(UPGRADE_QUEUE, {});
      let state: string | undefined;
      await until(async () => (state = await (await queue!.getJob(jobId))?.getState()) === 'delayed', () => `job ${jobId} to be parked; BullMQ has it ${state}`, timeoutMs);
    },
    async close() {
      await queue?.close();
      for (const engine of engines.splice(0)) await engine.close().catch(() => undefined);
      await queues.close();
      await sim.close();
      await deleteKeys(`${prefix}:*`);
    },
  };
}


const TERMINAL = ['succeeded', 'failed', 'aborted'];
// The thread of the harness started last (a worker runs its files one after another, so: in this test file).
let latestThread: RecordingThreadPort | undefined;

/**
 * Polls the job until its state is one of `states` (or fails the test with the state it was stuck in). A job that
 * ended is waited for until it has finished ending — its timeline uploaded, the last thing before the lock goes —
 * so assertions on the summary and the thread do not race the processor.
 */
export async function waitForJobState(engine: UpgradeEngine, jobId: string, states: string[], timeoutMs = 30_000, thread = latestThread): Promise<JobSummary> {
  let job: JobSummary | undefined;
  return until(
    async () => {
      job = await engine.control.getJob(jobId);
      const ended = job && TERMINAL.includes(job.state);
      const settled = !ended || !thread || thread.uploads.some((upload) => upload.key === `${jobId}:timeline`);
      return job && states.includes(job.state) && settled && job;
    },
    () => `job ${jobId} to reach ${states.join('/')}; it is ${job?.state} at "${job?.currentStep}"`,
    timeoutMs,
  );
}

/** An approver's answer to a gate card. */
export type GateDecision = { action: GateAction; reason?: string };

/**
 * Answers every gate card the job opens in `thread` (each revision once, by U0APP) with `decide`, as an approver
 * would, until the job has ended; returns the job and the gates it asked, in order. Fails naming where the job stood.
 */
export async function answerGatesUntilEnded(
  engine: UpgradeEngine,
  thread: RecordingThreadPort,
  jobId: string,
  decide: (gate: GateModel) => GateDecision,
  timeoutMs = 120_000,
): Promise<{ job: JobSummary; gates: GateModel[] }> {
  const answered = new Set<string>();
  const gates: GateModel[] = [];
  let job: JobSummary | undefined;
  await until(
    async () => {
      for (const event of thread.events('gate-opened')) {
        if (event.kind !== 'gate-opened' || answered.has(`${event.gate.gateId}:${event.gate.revision}`)) continue;
        answered.add(`${event.gate.gateId}:${event.gate.revision}`);
        gates.push(event.gate);
        await engine.control.answerGate({ jobId, gateId: event.gate.gateId, revision: event.gate.revision, userId: 'U0APP', ...decide(event.gate) });
      }
      job = await engine.control.getJob(jobId);
      return job && TERMINAL.includes(job.state);
    },
    () => `job ${jobId} to end, its gates answered; it is ${job?.state} at "${job?.currentStep}"`,
    timeoutMs,
  );
  return { job: job!, gates };
}

/**
 * The engine's worker role in a process of its own (engine-worker-process.ts) on this harness's simulator and queue
 * prefix, for the crash tests to SIGKILL; resolves once it takes jobs. `env` adds ENGINE_CLUSTERS_JSON and the like.
 */
export function startEngineWorkerProcess(h: EngineHarness, env: Record<string, string> = {}): Promise<ChildProcess> {
  return spawnWorker(h, env, 'ready');
}

/**
 * A worker process booted but not yet taking jobs (a second replica), so a crash test's replacement is up the moment
 * it kills the current one: `takeJobs` lets it start and resolves once it listens.
 */
export async function startStandbyWorkerProcess(h: EngineHarness, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; takeJobs(): Promise<ChildProcess> }> {
  const proc = await spawnWorker(h, { ...env, ENGINE_STANDBY: '1' }, 'standing by');
  return {
    proc,
    takeJobs: () => {
      const listening = outputOf(proc, 'ready');
      proc.stdin!.write('go\n');
      return listening;
    },
  };
}

async function spawnWorker(h: EngineHarness, env: Record<string, string>, announced: string): Promise<ChildProcess> {
  // engine-worker-process.ts bundled (test/support/built-entry.ts): half the CPU of a start under tsx.
  const proc = spawn(process.execPath, await builtEntry('test/integration/engine-worker-process.ts'), {
    env: { ...process.env, SIM_URL: h.sim.url, REDIS_URL: redisUrl, ENGINE_PREFIX: h.prefix, ...env },
    stdio: [env.ENGINE_STANDBY === '1' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  return outputOf(proc, announced);
}

/** Resolves with the process once it has printed `line`; rejects with its stderr if it exits first. */
function outputOf(proc: ChildProcess, line: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let err = '';
    let out = '';
    proc.stderr!.on('data', (chunk) => (err += chunk));
    proc.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.split('\n').includes(line)) resolve(proc);
    });
    proc.on('exit', (code) => reject(new Error(`worker process exited (${code}) before it printed "${line}": ${err}`)));
  });
}
