import type { Metrics } from '../../src/ports/metrics.js';
import type { ClusterConfig } from '../../src/config/clusters-config.js';
import type { Logger } from '../../src/log/logger.js';
import type { Clock } from '../../src/ports/clock.js';
import type { AutoScalingPort } from '../../src/ports/aws/autoscaling-port.js';
import type { Ec2Port } from '../../src/ports/aws/ec2-port.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { KubePort } from '../../src/ports/kube-port.js';
import type { SsmPort } from '../../src/ports/aws/ssm-port.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import type { GateStore } from '../../src/ports/gate-store.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import type { StepMessageModel, TimelineEvent, UpgradeState } from '../../src/ports/timeline-event.js';
import type { ActedAction, IssuedUpdate, UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedStep } from '../../src/ports/upgrade-plan.js';

/**
 * What a step (jobs/*-step.ts) gets from the processor. Steps never touch BullMQ: they read the world, decide, hand
 * what they decided to the executor as commands (jobs/engine/execute-commands.ts: it records what it issued through
 * `recordUpdate`, persisted in job.data before the step follows it, and describes instead in a dry run), and return a result;
 * the processor turns 'wait' into a delayed job, failures into the thread's error card, and so on.
 */
export interface StepContext {
  /** The live job data (read it; change it only through the methods below). */
  readonly data: UpgradeJobData;
  readonly step: PlannedStep;
  readonly clusterConfig: ClusterConfig;
  readonly eks: EksPort;
  kube(): Promise<KubePort>;
  readonly ssm: SsmPort;
  readonly ec2: Ec2Port;
  readonly autoScaling: AutoScalingPort;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pollIntervalMs: number;
  readonly gates: GateStore;
  /** Slack waivers (Redis) the preflight counts besides clusters.yaml's. */
  readonly waivers?: WaiverStore;
  /** Step, gate and upgrade metrics (optional: step tests leave it out). */
  readonly metrics?: Metrics;
  /** Appends to the timeline and posts to the thread under `${jobId}:${stepId}:${suffix}` (once per key). */
  emit(suffix: string, event: TimelineEvent): Promise<void>;
  /** Same, with explicit keys: the thread key (a gate card's) and the key in the timeline log. */
  emitKeyed(threadKey: string, logKey: string, event: TimelineEvent): Promise<void>;
  /**
   * Keeps one thread reply under `${jobId}:${stepId}:${suffix}` current in place, as a step's own message is: posted
   * the first time, edited after (progress edits at a bounded rate). For what people reply to and that changes as
   * the step goes, such as the Karpenter step's blocked nodes of a NodePool. It is not in the timeline: `record`
   * the events behind it.
   */
  showMessage(suffix: string, message: StepMessageModel): Promise<void>;
  /** Appends to the timeline only (the export, the complete record), once per key, without a thread post. */
  record(suffix: string, event: TimelineEvent): Promise<void>;
  /** Sets the status card's progress line (posted when it changes). */
  setProgress(text: string | undefined): Promise<void>;
  setState(state: UpgradeState): Promise<void>;
  stepState<T extends Record<string, unknown>>(): Partial<T>;
  saveStepState(patch: Record<string, unknown>): Promise<void>;
  /** Persists an issued (or adopted) AWS update under this step, before the step follows it. */
  recordUpdate(name: string, update: IssuedUpdate): Promise<void>;
  recordedUpdate(name: string): IssuedUpdate | undefined;
  /**
   * Records what the step did to one resource (once per resource, action and target), for the summary and audit.
   * In memory: it is persisted by the step's next save (saveStepState, or the processor's when the step ends), so
   * steps record just before they save the state that says the same.
   */
  recordActed(acted: ActedAction): void;
  controls(): Promise<JobControls>;
  /**
   * The guards as a gate sees them (issue 29): each one's state line for the card, the ones that refuse Continue now,
   * and whether guards apply to this job at all (never to a rollback or a dry run). Optional: step tests leave it out.
   */
  guards?(): { lines: string[]; halting: string[]; applies: boolean };
  /** Evaluates every guard now (a Continue is checked against fresh readings). */
  refreshGuards?(): Promise<void>;
  /** Waits on the injected clock; rejects when the worker is shutting down (the job is then parked and resumed). */
  sleep(ms: number): Promise<void>;
}

export type StepResult =
  | { outcome: 'done'; summary?: string }
  | { outcome: 'skipped'; summary: string }
  | { outcome: 'dry-run'; summary: string }
  /**
   * Park the job without holding a worker slot and run this step again after `delayMs` — or sooner, when
   * `wakeEarly` (checked right after parking, to close the race with a gate answer) says so or when a control
   * action promotes the job.
   */
  | { outcome: 'wait'; delayMs: number; wakeEarly?: () => Promise<boolean> }
  /** End the job as aborted (an Abort at a gate, a gate timeout with abortOnGateTimeout). */
  | { outcome: 'abort'; by: string; reason: string };

export type Step = (ctx: StepContext) => Promise<StepResult>;

/**
 * A permanent failure of a step: the message names the operation and the cause, `remedy` says what to do.
 * The processor posts both and fails the job without retrying.
 */
export class StepFailure extends Error {
  readonly permanent = true;
  readonly remedy?: string;
  readonly code?: string;
  constructor(message: string, options: { remedy?: string; code?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StepFailure';
    this.remedy = options.remedy;
    this.code = options.code;
  }
}
