/**
 * A rehearsal (issue 15): read the real cluster (reads only, as `plan` does), build its twin scenario, start the
 * simulator on it at high speed, and run the very same upgrade engine (UpgradeControl, the processor, every step
 * executor) against the twin, answering gates automatically as asked (`continue`, `remedy` or `stop`). Posts go to
 * `thread` marked REHEARSAL; the result is a report of what would block and where, how long each step takes at real
 * speed (simulated time), pods restarted, and the gates an on-call would face, compared with the plan.
 *
 * Nothing is called on the real cluster but reads; the engine runs under its own Redis prefix, so a rehearsal takes
 * no cluster lock. Callers refuse a rehearsal beside a running upgrade of the same cluster.
 */

import { readAndPlan } from '../../src/cluster-reader/read-and-plan.js';
import { PlanRequestError } from '../../src/planning/planner/build-plan.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import { randomUUID } from 'node:crypto';
import { deleteMatching, type RedisClient } from '../../src/store/redis-connection.js';
import type { QueueKit } from '../../src/store/queue-kit.js';
import { planHash } from '../../src/planning/planner/plan-hash.js';
import type { RehearsalStore } from '../../src/ports/rehearsal-store.js';
// The simulator is loaded only when a rehearsal runs (the web process never pays for it).
import type { SimTwin } from '@eks-upgrade-bot/sim/twin';
const sim = () => import('@eks-upgrade-bot/sim/twin');
import type { AutoScalingPortFactory } from '../../src/ports/aws/autoscaling-port.js';
import type { Ec2PortFactory } from '../../src/ports/aws/ec2-port.js';
import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { SsmPortFactory } from '../../src/ports/aws/ssm-port.js';
import type { KubePortFactory } from '../../src/ports/kube-port.js';
import { parseClustersConfig, type ClusterConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import { guardWatches, type GuardConfig } from '../../src/config/guards-config.js';
import type { Logger } from '../../src/log/logger.js';
import type { ClusterSnapshot } from '../../src/planning/cluster-snapshot.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { snapshotToScenario } from '../../src/planning/twin/twin-scenario.js';
import type { Clock } from '../../src/ports/clock.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { ThreadPort, ThreadRef } from '../../src/ports/slack/thread-port.js';
import type { GateAction, GateModel, StatusCardModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import { collectSnapshot, type SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { hopsBetweenText } from '../../src/cluster-reader/plan-request.js';
import { withDeadline } from '../../src/cluster-reader/bounded.js';
import { createUpgradeEngine } from '../worker/create-upgrade-engine.js';
import { problemsOf, WHAT_TO_DO } from '../engine/gate-step.js';

export type RehearsalAnswers = 'continue' | 'remedy' | 'stop';

export interface TwinRead {
  snapshot: ClusterSnapshot;
  scenario: Record<string, unknown>;
  from: string;
  /** The plan `plan` would show for the target (the next minor when none was given), or why there is none. */
  plan?: UpgradePlan;
  problem?: string;
}

/** The cluster read as `plan` reads it, and its twin scenario (validated by the simulator). */
export async function readTwinOf(
  sources: SnapshotSources,
  target: { name: string; region: string; roleArn?: string; config?: ClusterConfig },
  options: { to?: string; anonymize?: boolean; timeoutMs?: number; waivers?: WaiverStore } = {},
): Promise<TwinRead> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const described = await sources.eks(target).describeCluster(target.name);
  const from = described.version ?? '';
  const hops = options.to ? hopsBetweenText(from, options.to) : undefined;
  // Read and planned as `plan` and `start` do (src/cluster-reader/read-and-plan.ts), so the rehearsed plan is theirs.
  const reading = await readAndPlan(sources, { name: target.name, region: target.region, roleArn: target.roleArn, config: target.config, from, to: options.to, waivers: options.waivers, timeoutMs });
  const { snapshot } = reading;
  const offered = snapshot.versions.ok ? snapshot.versions.value.find((v) => v.version === from) : undefined;
  const { calendarAsOfFor, validateScenario } = await sim();
  const calendarAsOf = offered?.endOfStandardSupport ? calendarAsOfFor(from, offered.endOfStandardSupport, snapshot.readAt) : undefined;
  const scenario = snapshotToScenario(snapshot, { anonymize: options.anonymize, calendarAsOf });
  const images = await customImages(sources, target, [from, ...(hops ?? [])]);
  if (images.length) scenario.images = images;
  validateScenario(scenario, `twin of ${target.name}`);
  return { snapshot, scenario, from, ...('plan' in reading ? { plan: reading.plan } : { problem: reading.problem }) };
}

/**
 * The team's own AMIs that clusters.yaml points node groups at (`amiParameter`), read from SSM for each minor of the
 * route, so the twin's SSM answers the same parameters.
 */
async function customImages(sources: SnapshotSources, target: { region: string; roleArn?: string; config?: ClusterConfig }, minors: string[]): Promise<Array<Record<string, unknown>>> {
  const patterns = [...Object.values(target.config?.nodegroups ?? {}), ...Object.values(target.config?.selfManaged ?? {})]
    .map((p) => (p as { amiParameter?: string }).amiParameter)
    .filter((p): p is string => !!p);
  const images: Array<Record<string, unknown>> = [];
  for (const pattern of new Set(patterns)) {
    for (const minor of new Set(minors)) {
      const parameter = pattern.replace('{minor}', minor);
      const id = await sources.ssm(target).getParameter(parameter).catch(() => undefined);
      if (id && /^ami-[0-9a-f]+$/.test(id) && !images.some((i) => i.id === id)) images.push({ id, minor, family: 'AL2', parameter });
    }
  }
  return images;
}

export interface RehearsalStep {
  step: string;
  title: string;
  durationMs?: number;
  outcome: 'done' | 'failed' | 'not finished';
  /** The plan's estimate for steps of this kind in this hop, in minutes. */
  estimateMinutes?: number;
}

export interface RehearsalReport {
  cluster: string;
  from: string;
  to: string;
  answers: RehearsalAnswers;
  state: string;
  planHash: string;
  /** The plan's total estimate and what the twin took, in simulated (real-speed) milliseconds. */
  planEstimateMinutes: number;
  rehearsedMs: number;
  steps: RehearsalStep[];
  gates: Array<{ gateId: string; title: string; answer: GateAction | 'timeout' | 'none'; details: string[] }>;
  blocks: string[];
  podsRestarted: number;
  pendingPods: string[];
  /**
   * The cluster's guards (clusters.yaml `guards:`) and the rehearsed steps a real run would have evaluated them at
   * (before each step that acts and at its safe points) and the gates whose cards show them. Never read: a rehearsal
   * never reads the real guards.
   */
  guards: Array<{ name: string; watches: string; intervalSeconds: number; steps: string[]; gates: string[] }>;
  /** Mutating calls the real cluster received during the rehearsal (always 0: it is only read). */
  restarted?: boolean;
  lines: string[];
}

export interface RehearseOptions {
  /** The real cluster's ports: only reads are made through them. */
  sources: SnapshotSources;
  cluster: { name: string; region: string; roleArn?: string; config?: ClusterConfig };
  to: string;
  answers: RehearsalAnswers;
  /**
   * The entry point's Redis connections and BullMQ objects (src/store/queue-kit.ts): the rehearsal's engine runs in a
   * scope of it under its own prefix, closed when the rehearsal ends.
   */
  queues: QueueKit;
  /** The SDK and Kubernetes adapters pointed at a twin, built by the entry point (src/wiring/twin-ports.ts). */
  twinPorts: TwinPortsFactory;
  /** Prefix under which the rehearsal's own engine keeps its queue (a fresh one per rehearsal is derived from it). */
  prefix: string;
  logger: Logger;
  /** Where REHEARSAL posts go (Slack thread); default: none. */
  thread?: ThreadPort;
  channel?: string;
  requestedBy?: string;
  /** Simulated seconds per real second (default 300; higher is faster and less exact). */
  speed?: number;
  /** Simulated minutes without a step moving on after which the rehearsal calls the upgrade stalled (default 240). */
  stallMinutes?: number;
  /** Real-time budget for the whole run (default 10 minutes). */
  timeoutMs?: number;
  /** Ctrl-C of the CLI: the rehearsal stops where it is, records no result and removes its engine's keys. */
  signal?: AbortSignal;
  /** Called as events happen (the CLI prints them). */
  onEvent?: (event: TimelineEvent) => void;
  /** Where the result is kept for requireRehearsal (default: not kept). */
  store?: RehearsalStore;
  /** Test hook: the running twin, once started. */
  onTwin?: (twin: SimTwin) => void;
  /** The Slack waivers the plan counts, as `plan` does (absent: clusters.yaml's alone, and the plan says so). */
  waivers?: WaiverStore;
  /** The Redis prefix of the rehearsal's own engine (default: derived from `prefix`, fresh per run). */
  enginePrefix?: string;
}

/** The ports an upgrade engine runs on, pointed at a running twin (its simulator's URL and clock). */
export interface TwinPorts {
  eks: EksPortFactory;
  kube: KubePortFactory;
  ssm: SsmPortFactory;
  ec2: Ec2PortFactory;
  autoScaling: AutoScalingPortFactory;
}
export type TwinPortsFactory = (twin: { url: string; clock: Clock }) => TwinPorts;

/** Runs one rehearsal to its end and returns the report. */
export async function rehearseUpgrade(opts: RehearseOptions): Promise<RehearsalReport> {
  const read = await readTwinOf(opts.sources, opts.cluster, { to: opts.to, waivers: opts.waivers });
  if (!read.plan) throw new PlanRequestError(read.problem ?? `${opts.cluster.name} could not be planned to ${opts.to}`);
  return runUpgradeOnScenario(read.scenario, read.plan, read.from, opts);
}

/**
 * Runs the upgrade engine with `plan` against a simulator started from `scenario` (the twin, or for benchmarks the
 * original scenario itself) and reports as a rehearsal does.
 */
export async function runUpgradeOnScenario(scenario: object, plan: UpgradePlan, from: string, opts: Omit<RehearseOptions, 'sources'>): Promise<RehearsalReport> {
  const read = { from };
  const cluster = opts.cluster.name;
  const twin = await (await sim()).startTwin(scenario, { speed: opts.speed ?? 300 });
  opts.onTwin?.(twin);
  const engineClock = twin.server.clock as Clock;
  const ports = opts.twinPorts({ url: twin.url, clock: engineClock });
  const { kube } = ports;
  const recorded: TimelineEvent[] = [];
  const gateAnswers = new Map<string, GateAction | 'timeout'>();
  const answered = new Set<string>();
  // How often each gate was answered automatically since a step last ended, and the gate the rehearsal stopped at.
  const budget = createAnswerBudget();
  let answer: (gate: GateModel) => void = () => undefined;
  const speed = opts.speed ?? 300;
  // An on-call's answer time is not the step's: the twin's clock crawls while a gate waits for the automatic answer,
  // and runs at full speed again once the job moves on.
  let crawling = false;
  const crawl = (on: boolean) => {
    if (crawling === on) return;
    crawling = on;
    twin.setSpeed(on ? 1 : speed);
  };
  // The thread says when to answer (a gate card) and when the job is busy again (any other post but the answer's
  // own card edit: full speed comes back shortly after the answer); what happened is read from the job's timeline.
  const thread = rehearsalThread(opts.thread, opts.answers, (event) => {
    if (event?.kind === 'gate-opened') {
      crawl(true);
      answer(event.gate);
    } else if (event?.kind !== 'gate-answered') crawl(false);
  });
  // The cluster's own policy (strategies, budgets, checks), without what only the real one needs: its role, its window.
  const config: ClustersConfig = opts.cluster.config
    ? { clusters: [{ ...opts.cluster.config, roleArn: undefined, maintenanceWindow: undefined, twoPersonRule: false }] }
    : parseClustersConfig({ clusters: [{ name: cluster, region: opts.cluster.region, channels: ['C0REHEARSAL'], requesters: ['U0REHEARSAL'], approvers: ['U0REHEARSAL'] }] }, 'rehearsal');
  const enginePrefix = opts.enginePrefix ?? `${opts.prefix}-rehearsal-${randomUUID().slice(0, 8)}`;
  // The engine's queue, worker and connections, closed with this scope when the rehearsal ends.
  const queues = opts.queues.scope(enginePrefix);
  const engine = createUpgradeEngine({
    queues,
    config,
    ...ports,
    thread,
    clock: engineClock,
    logger: opts.logger,
    pollIntervalMs: 15_000,
  });
  try {
    await twinSettled(twin, cluster);
    const kubePort = await kube({ name: cluster, region: opts.cluster.region });
    const podsBefore = (await kubePort.list('pods')).items;
    await engine.startWorker({ concurrency: 1 });
    const started = await engine.control.start(
      { cluster, region: opts.cluster.region, to: opts.to, requestedBy: opts.requestedBy ?? 'rehearsal', channel: opts.channel ?? 'rehearsal', dryRun: false },
      read.from,
      plan,
    );
    if (!started.ok) throw new Error(`the rehearsal engine refused to start: ${started.reason}`);
    const jobId = started.job.jobId;
    // What the report is made of: the job's timeline log (every event the job appended, in its order), read as it
    // grows, one read at a time, beside the rehearsal's own notes (a stall, a block).
    let followed = 0;
    let following: Promise<void> = Promise.resolve();
    const follow = (): Promise<void> =>
      (following = following.catch(() => undefined).then(async () => {
        const entries = await engine.timeline.read(jobId, followed);
        for (const { event } of entries) {
          recorded.push(event);
          opts.onEvent?.(event);
          if (event.kind === 'gate-answered') gateAnswers.set(event.gate.gateId, event.action);
          // A step that ends is progress: the gates answered before it start their count again.
          budget.observe(event);
        }
        followed += entries.length;
      }));
    const reply = (gate: GateModel, key: string) => {
      // The same question again and again, nothing moving: a real run with these answers would loop too.
      if (!budget.allow(gate)) return;
      const action = decide(gate, opts.answers);
      setTimeout(() => {
        engine.control
          .answerGate({ jobId, gateId: gate.gateId, revision: gate.revision, action, userId: rehearsalAnswerer(opts.answers), reason: action === 'force' ? `rehearsal: forced automatically (--answers ${opts.answers})` : undefined })
          .then((result) => {
            if (result.outcome !== 'accepted' && result.outcome !== 'already-answered') answered.delete(key);
            // The job may go on without posting for a while: full speed again shortly after the answer.
            else setTimeout(() => crawl(false), 1_000);
          })
          .catch((error: Error) => {
            answered.delete(key);
            opts.logger.warn({ err: error }, 'rehearsal gate answer failed');
          });
      }, 50);
    };
    answer = (gate) => {
      const key = `${gate.gateId}#${gate.revision}`;
      if (answered.has(key)) return;
      answered.add(key);
      // A gate is appended to the timeline before it is posted, so this read holds every step that ended before it
      // (the answer budget counts again after each).
      follow().then(
        () => reply(gate, key),
        (error: Error) => {
          answered.delete(key);
          opts.logger.warn({ err: error }, "reading the rehearsal job's timeline failed");
        },
      );
    };
    const startedAt = engineClock.now();
    const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
    const stallMs = (opts.stallMinutes ?? 240) * 60_000;
    let state = 'running';
    let stalled = false;
    while (Date.now() < deadline) {
      if (opts.signal?.aborted) {
        state = 'interrupted';
        break;
      }
      await follow();
      const job = await engine.control.getJob(jobId);
      state = job?.state ?? 'unknown';
      if (['succeeded', 'failed', 'aborted'].includes(state)) break;
      // A step that makes no progress for stallMinutes of simulated time would stall the real upgrade too: stop here.
      const lastStep = [...recorded].reverse().find((e) => e.kind === 'step-started' || e.kind === 'step-finished' || e.kind === 'gate-answered' || e.kind === 'progress');
      if (!stalled && lastStep && engineClock.now() - lastStep.at > stallMs) {
        stalled = true;
        recorded.push({ kind: 'note', at: engineClock.now(), level: 'warning', text: `Step ${job?.currentStep ?? '?'} made no progress for ${opts.stallMinutes ?? 240} minutes: the rehearsal stops it here (a real upgrade would wait on it).` });
        await engine.control.abort(jobId, 'rehearsal (stalled)').catch(() => undefined);
      }
      const blockedAt = budget.blocked();
      if (blockedAt && !stalled) {
        stalled = true;
        recorded.push({ kind: 'note', at: engineClock.now(), level: 'warning', text: blockedLine(blockedAt.gate, blockedAt.times, opts.answers) });
        await engine.control.abort(jobId, 'rehearsal (blocked)').catch(() => undefined);
      }
      if (job?.openGate && !answered.has(`${job.openGate.gateId}#${job.openGate.revision}`)) {
        const opened = [...recorded].reverse().find((e) => e.kind === 'gate-opened' && e.gate.gateId === job.openGate!.gateId);
        if (opened?.kind === 'gate-opened' && opened.gate.revision === job.openGate.revision) answer(opened.gate);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (budget.blocked()) state = 'blocked';
    else if (stalled) state = `stalled (${state})`;
    const rehearsedMs = engineClock.now() - startedAt;
    await follow();
    const podsAfter = (await kubePort.list('pods')).items;
    const report = buildReport({ cluster, from: read.from, to: opts.to, answers: opts.answers, state, plan, recorded, gateAnswers, podsBefore, podsAfter, rehearsedMs, guards: config.clusters[0].guards ?? [] });
    if (state !== 'interrupted') await opts.store?.record({ cluster, from: read.from, to: opts.to, planHash: report.planHash, state, answers: opts.answers, at: Date.now() });
    return report;
  } finally {
    await engine.close().catch(() => undefined);
    await twin.stop();
    await dropKeys(queues.redis({ maxRetriesPerRequest: 1 }), enginePrefix).catch(() => undefined);
    await queues.close();
  }
}

/** Automatic answers to one gate, with no step ending in between, after which the rehearsal calls it blocked. */
export const MAX_ANSWERS_WITHOUT_PROGRESS = 3;

/**
 * How many automatic answers each gate has had since a step last ended: `allow` says whether the rehearsal may
 * answer this opening too; once a gate has had MAX_ANSWERS_WITHOUT_PROGRESS, it is the block the rehearsal ends at.
 */
export function createAnswerBudget(max = MAX_ANSWERS_WITHOUT_PROGRESS) {
  const answers = new Map<string, number>();
  let blockedAt: { gate: GateModel; times: number } | undefined;
  return {
    observe(event: TimelineEvent): void {
      if (event.kind === 'step-finished') answers.clear();
    },
    allow(gate: GateModel): boolean {
      const times = answers.get(gate.gateId) ?? 0;
      if (times >= max) {
        blockedAt ??= { gate, times };
        return false;
      }
      answers.set(gate.gateId, times + 1);
      return true;
    },
    blocked: () => blockedAt,
  };
}

/** The finding a rehearsal ends `blocked` with: where, why, and what an operator would have to do. */
export function blockedLine(gate: GateModel, times: number, answers: RehearsalAnswers): string {
  const why = (gate.problems ?? problemsOf(gate)).slice(0, 3).map((d) => d.replace(/\s+/g, ' ').trim()).join(' ');
  const todo = gate.details.find((d) => d.startsWith(WHAT_TO_DO))?.slice(WHAT_TO_DO.length).trim();
  return `Blocked at gate ${gate.gateId} ("${gate.title}"): asked again after ${times} automatic answers (${decide(gate, answers)}, --answers ${answers}) with no step ending, so a real run answered this way would loop here. ${why}`
    + ` An operator would have to ${todo ? todo.replace(/\.$/, '') : 'resolve what the gate names'} before the upgrade can pass, or answer it another way.`;
}

/** The rehearsal's own queue and engine state are of no use once its report is out. */
export async function dropKeys(redis: RedisClient, prefix: string): Promise<void> {
  // Every master of a cluster (SCAN's MATCH treats a hash tag's braces as plain characters).
  await deleteMatching(redis, `${prefix}:*`);
}

/**
 * Who answers a rehearsal's gates: no person, and not a Slack user id, so every line that names the answerer
 * (`mention`) says it in words ("approved by the rehearsal's automatic answer (--answers continue)").
 */
export function rehearsalAnswerer(answers: RehearsalAnswers): string {
  return `the rehearsal's automatic answer (--answers ${answers})`;
}

/** How the rehearsal answers a gate. */
export function decide(gate: GateModel, answers: RehearsalAnswers): GateAction {
  const has = (a: GateAction) => gate.actions.includes(a);
  const blocking = has('remedy') || (has('force') && !has('continue'));
  if (answers === 'stop' && blocking) return 'abort';
  if (answers === 'remedy' && has('remedy')) return 'remedy';
  if (has('continue')) return 'continue';
  if (has('force')) return 'force';
  return 'abort';
}

/** Waits (real time, bounded) until every pod of the twin is bound and running, as the real cluster was read. */
async function twinSettled(twin: SimTwin, cluster: string): Promise<void> {
  const store = twin.server.world.kube(cluster);
  const until = Date.now() + 30_000;
  while (store && Date.now() < until) {
    const pods = store.list('pods');
    const pdbs = store.list('poddisruptionbudgets');
    const bound = pods.filter((p) => p.spec?.nodeName && p.status?.phase === 'Running').length;
    if (bound >= pods.length - pods.filter((p) => p.status?.phase === 'Pending' && (p.status?.conditions ?? []).some((c: { reason?: string }) => c.reason === 'Unschedulable')).length && pdbs.every((p) => p.status?.observedGeneration !== undefined) && pods.length > 0) {
      // Give the controllers a few simulated seconds more to compute PDB status and NodeClaim conditions.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A ThreadPort that marks every post REHEARSAL, forwarding to `inner` when given, and tells `seen` of each post (the
 * event, or nothing for a step's message): the rehearsal answers gate cards as they are posted. What the report says
 * is read from the job's timeline log, not from these posts.
 */
function rehearsalThread(inner: ThreadPort | undefined, answers: RehearsalAnswers, seen: (event?: TimelineEvent) => void): ThreadPort {
  const rehearsalGate = (gate: GateModel): GateModel => ({
    jobId: gate.jobId,
    gateId: gate.gateId,
    revision: gate.revision,
    title: `REHEARSAL (answered automatically) · ${gate.title}`,
    details: gate.details,
    actions: [],
    remedyLabel: gate.remedyLabel,
    automatic: `the rehearsal (--answers ${answers})`,
  });
  // The card says REHEARSAL in its title and offers no controls (renderStatusCard); its cluster stays the real name.
  const mark = (card: StatusCardModel): StatusCardModel => ({ ...card, rehearsal: true });
  const markEvent = (event: TimelineEvent): TimelineEvent => {
    switch (event.kind) {
      case 'step-started':
      case 'step-finished':
        return { ...event, title: `REHEARSAL · ${event.title}` };
      case 'progress':
        return { ...event, text: `REHEARSAL · ${event.text}` };
      case 'note':
        return { ...event, text: `REHEARSAL · ${event.text}` };
      // No control on any rehearsal message acts on anything (issue 23): its gates are answered by the rehearsal
      // itself (no buttons, no Waive…), and its summary or failure offers no Roll back, which would act on the real
      // cluster of the same name.
      case 'step-failed':
        return { ...event, title: `REHEARSAL · ${event.title}`, rollback: undefined };
      case 'gate-opened':
        return { ...event, gate: rehearsalGate(event.gate) };
      case 'gate-answered':
        return { ...event, gate: rehearsalGate(event.gate) };
      case 'summary':
        return { ...event, rehearsal: true, rollback: undefined, lines: ['REHEARSAL on a simulated twin: nothing was changed on the real cluster.', ...event.lines] };
      default:
        return event;
    }
  };
  let fakeTs = 0;
  return {
    async openThread(channel, card) {
      if (inner) return inner.openThread(channel, mark(card));
      return { channel, ts: `${Date.now()}.${String(++fakeTs).padStart(6, '0')}` } satisfies ThreadRef;
    },
    async updateStatusCard(thread, card) {
      await inner?.updateStatusCard(thread, mark(card));
    },
    async postEvent(thread, key, event) {
      seen(event);
      await inner?.postEvent(thread, key, markEvent(event));
    },
    async upsertStepMessage(thread, key, message, dedupeKey) {
      seen();
      await inner?.upsertStepMessage(thread, key, { ...message, title: `REHEARSAL · ${message.title}` }, dedupeKey);
    },
    async uploadMarkdown(thread, key, filename, title, content) {
      await inner?.uploadMarkdown(thread, key, `rehearsal-${filename}`, `REHEARSAL · ${title}`, content);
    },
  };
}

/** The kinds of step during which a real run reads the guards at their interval: every one that changes the cluster. */
const GUARDED_KINDS = new Set(['karpenter-budget', 'control-plane', 'addons', 'managed-nodegroups', 'karpenter', 'self-managed', 'fargate']);

function fmt(ms: number | undefined): string {
  if (ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function buildReport(input: {
  cluster: string;
  from: string;
  to: string;
  answers: RehearsalAnswers;
  state: string;
  plan: UpgradePlan;
  recorded: TimelineEvent[];
  gateAnswers: Map<string, GateAction | 'timeout'>;
  podsBefore: KubeObject[];
  podsAfter: KubeObject[];
  rehearsedMs: number;
  guards: GuardConfig[];
}): RehearsalReport {
  const { recorded, plan } = input;
  const steps: RehearsalStep[] = [];
  for (const event of recorded) {
    if (event.kind === 'step-started' && !steps.some((s) => s.step === event.step)) steps.push({ step: event.step, title: event.title, outcome: 'not finished' });
    if (event.kind === 'step-finished' || event.kind === 'step-failed') {
      const step = steps.find((s) => s.step === event.step) ?? { step: event.step, title: event.title, outcome: 'not finished' as const };
      if (!steps.includes(step)) steps.push(step);
      step.outcome = event.kind === 'step-finished' ? 'done' : 'failed';
      if (event.kind === 'step-finished') step.durationMs = event.durationMs;
    }
  }
  // The plan's estimate per step id ("h1-managed-nodegroups" ↔ hop 1, kind managed-nodegroups).
  plan.hops.forEach((hop, i) => {
    for (const step of steps.filter((s) => s.step.startsWith(`h${i + 1}-`))) {
      const kind = step.step.slice(`h${i + 1}-`.length);
      const planned = hop.steps.filter((p) => p.kind === kind);
      if (planned.length) step.estimateMinutes = planned.reduce((sum, p) => sum + (p.estimateMinutes ?? 0), 0);
    }
  });
  // A gate asked again (a new revision: the drain still blocked after a remedy) is one gate an on-call faces, with what
  // every revision said: a later card that no longer names the PDB must not drop the block the first one found.
  const opened = new Map<string, GateModel>();
  for (const event of recorded) {
    if (event.kind !== 'gate-opened') continue;
    const earlier = opened.get(event.gate.gateId);
    opened.set(event.gate.gateId, earlier ? { ...event.gate, details: [...new Set([...earlier.details, ...event.gate.details])], problems: [...new Set([...(earlier.problems ?? []), ...(event.gate.problems ?? [])])] } : event.gate);
  }
  const gates = [...opened.values()].map((g) => ({ gateId: g.gateId, title: g.title, answer: input.gateAnswers.get(g.gateId) ?? ('none' as const), details: g.details }));
  // What each gate asked because something blocked names (GateModel.problems, set where the gate is opened).
  const blocks = [...opened.values()].flatMap((g) => (g.problems ?? []).map((problem) => `${g.gateId}: ${problem.replace(/\s+/g, ' ').trim()}`));
  for (const event of recorded) {
    if (event.kind === 'step-failed') blocks.push(`${event.step}: ${event.error}`);
    // Waits the job sits out rather than gates are the steps' warning notes (a NodePool with no claim replaced for the
    // stall time, a replacement never Ready, a blocked disruption); the preflight's findings note is the plan's, not one.
    if (event.kind === 'note' && event.level === 'warning' && event.topic !== 'findings') {
      const line = `note: ${event.text.replace(/\s+/g, ' ').trim()}`;
      const seen = (l: string) => l.replace(/\d+/g, 'N');
      if (!blocks.some((b) => seen(b) === seen(line))) blocks.push(line);
    }
  }
  const before = new Set(input.podsBefore.map((p) => p.metadata.uid));
  const after = new Set(input.podsAfter.map((p) => p.metadata.uid));
  const podsRestarted = [...before].filter((uid) => !after.has(uid)).length;
  const pendingPods = input.podsAfter.filter((p) => p.status?.phase === 'Pending').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
  const plannedGates = plan.hops.flatMap((hop) => hop.steps).filter((step) => step.gate).length;
  const onlyIfBlocked = plan.hops.flatMap((hop) => hop.steps).reduce((sum, step) => sum + (step.conditionalGates?.length ?? 0), 0);
  const planEstimateMinutes = plan.hops.reduce((sum, hop) => sum + (hop.estimateMinutes ?? 0), 0);
  const hash = planHash(plan);
  // The steps that act, where a real run reads the guards at every interval (jobs/worker/guard-watch.ts); not the gates,
  // preflight or verify, whose cards and checks only show them.
  const acting = steps.filter((s) => GUARDED_KINDS.has(s.step.replace(/^h\d+-/, ''))).map((s) => s.title);
  const guards = input.guards.map((guard) => ({ name: guard.name, watches: guardWatches(guard), intervalSeconds: guard.intervalMs / 1000, steps: acting, gates: gates.map((g) => g.title) }));
  const lines = [
    `REHEARSAL of ${input.cluster} ${input.from} → ${input.to} on a simulated twin (gates answered: ${input.answers}): ${input.state}.`,
    `Predicted at real speed: ${fmt(input.rehearsedMs)} in all (the plan estimates ${planEstimateMinutes} min).`,
    '',
    'Steps (rehearsed · planned):',
    ...steps.map((s) => `  ${s.title}: ${fmt(s.durationMs)} · ${s.estimateMinutes === undefined ? '—' : `${s.estimateMinutes} min`} (${s.outcome})`),
    '',
    blocks.length ? 'What would block, and where:' : 'Nothing would block.',
    ...blocks.map((b) => `  ${b}`),
    `The plan's blocking findings: ${plan.findings.filter((f) => f.severity === 'error' && !f.waived).map((f) => f.code).join(', ') || 'none'}.`,
    '',
    `Gates an on-call would face (${gates.length}; the plan announces ${plannedGates}, and ${onlyIfBlocked} more only if something blocks):`,
    ...gates.map((g) => `  ${g.title} → ${g.answer}`),
    '',
    ...(guards.length > 0
      ? [
          `Guards a real run would have evaluated (${guards.length}; not read here: a rehearsal never reads the real guards):`,
          ...guards.map((g) => `  ${g.name} (${g.watches}), every ${g.intervalSeconds} s ${g.steps.length > 0 ? `during: ${g.steps.join('; ')}` : 'during no step (none that acts was reached)'}${g.gates.length > 0 ? `; shown on ${g.gates.length} gate card${g.gates.length === 1 ? '' : 's'}, where Continue is refused while it halts` : ''}.`),
          '',
        ]
      : []),
    `Pods restarted: ${podsRestarted}.${pendingPods.length ? ` Pods left Pending (no node fits them): ${pendingPods.join(', ')}.` : ' No pod left Pending.'}`,
    `Plan hash ${hash}: a real start of the same plan counts this rehearsal.`,
  ];
  return { cluster: input.cluster, from: input.from, to: input.to, answers: input.answers, state: input.state, planHash: hash, planEstimateMinutes, rehearsedMs: input.rehearsedMs, steps, gates, blocks, podsRestarted, pendingPods, guards, lines };
}
