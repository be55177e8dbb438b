import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { parseClustersConfig, type ClusterConfig } from '../../src/config/clusters-config.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { createLogger } from '../../src/log/logger.js';
import type { Clock } from '../../src/ports/clock.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { KubePort } from '../../src/ports/kube-port.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import type { GateStore } from '../../src/ports/gate-store.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import type { Step, StepContext, StepResult } from '../../jobs/engine/step-context.js';
import type { StepMessageModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedStep, StepKind } from '../../src/ports/upgrade-plan.js';

/**
 * Runs one data-plane step (Karpenter, Fargate) directly against the simulator through the real adapters (SDK,
 * client-node over HTTP), with what the processor would give it: job data that survives between runs (as
 * job.data does), controls a test flips, and a record of the timeline posts and status-card progress. Each run
 * builds a fresh StepContext from the stored data, as a worker picking the job up again would.
 */
export interface StepRig {
  data: UpgradeJobData;
  controls: JobControls;
  /** Timeline posts kept (one per key, as the thread shows them). */
  posts: Array<{ key: string; event: TimelineEvent }>;
  progress: string[];
  /** Messages kept in place (showMessage), by key: every version, oldest first (the thread shows the last). */
  messages: Map<string, StepMessageModel[]>;
  /** The timeline as the export reads it: posts and record()ed events, once per key. */
  timeline: Array<{ key: string; event: TimelineEvent }>;
  eks: EksPort;
  kube: KubePort;
  context(overrides?: Partial<StepContext>): StepContext;
  /** Runs the step again and again (parking `delayMs` on the sim clock between runs) until it stops waiting. */
  runUntilSettled(step: Step, opts?: { timeoutMs?: number; between?: (result: StepResult, run: number) => Promise<void> | void }): Promise<{ result: StepResult; runs: number }>;
  texts(): string[];
}

export async function createStepRig(sim: SimServer, opts: { cluster: string; kind: StepKind; from: string; to: string; upgradeBudget?: string; dryRun?: boolean; pollIntervalMs?: number; clusterYaml?: Record<string, unknown> }): Promise<StepRig> {
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  const eksFactory = createEksPortFactory({ endpoint: sim.url, credentials, maxAttempts: 2 });
  const ssm = createSsmPortFactory({ endpoint: sim.url, credentials, maxAttempts: 2 })({ region: 'us-west-2' });
  const kube = await createKubePortFactory({ eks: eksFactory, tokenSourceFor: () => ({ token: async () => 'sim' }) })({ name: opts.cluster, region: 'us-west-2' });
  const eks = eksFactory({ region: 'us-west-2' });
  const ec2 = createEc2PortFactory({ endpoint: sim.url, credentials, maxAttempts: 2 })({ region: 'us-west-2' });
  const autoScaling = createAutoScalingPortFactory({ endpoint: sim.url, credentials, maxAttempts: 2 })({ region: 'us-west-2' });
  const clusterConfig: ClusterConfig = parseClustersConfig({
    clusters: [{ name: opts.cluster, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], karpenter: { upgradeBudget: opts.upgradeBudget ?? '1' }, ...opts.clusterYaml }],
  }).clusters[0];
  const step: PlannedStep = { id: `h1-${opts.kind}`, kind: opts.kind, hop: 1, from: opts.from, to: opts.to, title: `${opts.kind} to ${opts.to}` };
  const data = {
    schema: 2, jobId: 'job-1', cluster: opts.cluster, region: 'us-west-2', from: opts.from, to: opts.to, hops: [opts.to], requestedBy: 'U0REQ',
    channel: 'C0OPS', thread: { channel: 'C0OPS', ts: '1.0' }, dryRun: opts.dryRun ?? false, startedAt: sim.clock.now(), state: 'running',
    steps: [step], stepIndex: 0, stepRuns: {}, updates: {}, stepState: {}, retries: {}, pauseSeq: 0, acted: {},
  } as unknown as UpgradeJobData;
  const posts: StepRig['posts'] = [];
  const progress: string[] = [];
  const messages: StepRig['messages'] = new Map();
  const timeline: StepRig['timeline'] = [];
  const controls: JobControls = { paused: false, pauseSeq: 0 };
  const clock: Clock = sim.clock;
  const logger = createLogger({ level: process.env.STEP_TEST_LOG ?? 'silent' });

  const append = (key: string, event: TimelineEvent) => {
    if (!timeline.some((entry) => entry.key === key)) timeline.push({ key, event });
  };
  const post = (key: string, event: TimelineEvent) => {
    append(key, event);
    if (!posts.some((p) => p.key === key)) posts.push({ key, event });
  };
  const rig: StepRig = {
    data, controls, posts, progress, messages, timeline, eks, kube,
    context(overrides = {}) {
      // job.data goes through JSON in Redis: each run sees a copy, never the previous run's objects.
      const stored = () => (data.stepState[step.id] ??= {});
      return {
        data, step, clusterConfig, eks, ec2, autoScaling, ssm, clock, logger, pollIntervalMs: opts.pollIntervalMs ?? 2_000, gates: {} as GateStore,
        kube: async () => kube,
        emit: async (suffix, event) => post(`${data.jobId}:${step.id}:${suffix}`, event),
        emitKeyed: async (threadKey, _logKey, event) => post(threadKey, event),
        async showMessage(suffix, message) {
          const key = `${data.jobId}:${step.id}:${suffix}`;
          messages.set(key, [...(messages.get(key) ?? []), structuredClone(message)]);
        },
        record: async (suffix, event) => append(`${data.jobId}:${step.id}:${suffix}`, event),
        async setProgress(text) {
          if (text !== undefined && progress.at(-1) !== text) progress.push(text);
        },
        setState: async () => undefined,
        recordActed(acted) {
          (data.acted[step.id] ??= {})[`${acted.resource} ${acted.action}${acted.to ? ` ${acted.to}` : ''}`] = acted;
        },
        stepState: <T extends Record<string, unknown>>() => structuredClone(stored()) as Partial<T>,
        async saveStepState(patch) {
          Object.assign(stored(), structuredClone(patch));
        },
        recordUpdate: async () => undefined,
        recordedUpdate: () => undefined,
        controls: async () => structuredClone(controls),
        sleep: (ms) => clock.sleep(ms),
        ...overrides,
      };
    },
    async runUntilSettled(run, { timeoutMs = 60_000, between } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (let runs = 1; ; runs++) {
        const result = await run(rig.context());
        if (result.outcome !== 'wait') return { result, runs };
        await between?.(result, runs);
        if (Date.now() > deadline) throw new Error(`the step still waits after ${runs} runs (${timeoutMs} ms); last progress: ${progress.at(-1)}`);
        await clock.sleep(result.delayMs);
      }
    },
    texts: () => posts.map((p) => ('text' in p.event ? p.event.text : '')),
  };
  return rig;
}

/** Upgrades the simulated control plane through the EKS API and waits until DescribeCluster shows it ACTIVE at `to`. */
export async function upgradeControlPlane(rig: StepRig, cluster: string, to: string, timeoutMs = 20_000): Promise<void> {
  await rig.eks.updateClusterVersion(cluster, to);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const described = await rig.eks.describeCluster(cluster);
    if (described.version === to && described.status === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`the control plane of ${cluster} is ${described.status} at ${described.version}, not ACTIVE at ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
