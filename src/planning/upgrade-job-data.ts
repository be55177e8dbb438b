import type { ActionKind, PlannedStep } from '../ports/upgrade-plan.js';
import type { ThreadRef } from '../ports/slack/thread-port.js';
import type { RollbackOffer, StatusCardModel, UpgradeState } from '../ports/timeline-event.js';
import { previousMinor } from './rollback-preflight.js';
import type { GuardTrack } from './guards/evaluate-guard.js';

/**
 * The BullMQ job's data: the single source of truth for resuming an upgrade. Only the processor writes it
 * (job.updateData replaces the whole object, so a second writer would lose updates); the control side keeps
 * its requests — gate answers, pause, abort — in Redis keys of its own (gate-store.ts, job-controls-store.ts).
 */
/** The job-data shape this build writes; jobs/worker/job-data-schema.ts brings older shapes up to it. */
export const JOB_DATA_SCHEMA = 2;

/** What a step did to one resource: compared with the plan's action in the summary and the plan-equals-job test. */
export interface ActedAction {
  resource: string;
  action: ActionKind;
  to?: string;
  /** done: acted as planned; already: the world was already there; left-alone: not in the plan; gone: vanished; skipped: a person chose so. */
  outcome: 'done' | 'already' | 'left-alone' | 'gone' | 'skipped';
  note?: string;
}

export interface StepRun {
  startedAt: number;
  finishedAt?: number;
  durationMs?: number;
  outcome?: 'done' | 'skipped' | 'failed' | 'aborted' | 'dry-run';
  summary?: string;
}

/** A mutating AWS call the job issued (or adopted), recorded before it is followed so a re-run never re-issues. */
export interface IssuedUpdate {
  updateId: string;
  operation: string;
  target: string;
  at: number;
  adopted: boolean;
}

export interface UpgradeJobData {
  schema: typeof JOB_DATA_SCHEMA;
  jobId: string;
  cluster: string;
  region: string;
  roleArn?: string;
  from: string;
  to: string;
  hops: string[];
  requestedBy: string;
  channel: string;
  thread: ThreadRef;
  dryRun: boolean;
  startedAt: number;
  finishedAt?: number;
  state: UpgradeState;
  steps: PlannedStep[];
  /** Index into steps of the step to run next (or running now). */
  stepIndex: number;
  progress?: string;
  stepRuns: Record<string, StepRun>;
  /** Keyed by step id, then by a step-local name (e.g. "cluster", an add-on or node-group name). */
  updates: Record<string, Record<string, IssuedUpdate>>;
  /** Step-local state that must survive a crash (e.g. the gate revision a step opened). */
  stepState: Record<string, Record<string, unknown>>;
  /** Transient-failure retries per step, for the backoff. */
  retries: Record<string, number>;
  /** The pause sequence number the job last acknowledged, so each pause/resume is announced once. */
  pauseSeq: number;
  /** How the job ended, in one sentence, once it has. */
  outcomeText?: string;
  /** Per step id, what the step did to each resource (keyed by resource and action, so a re-run records once). */
  acted: Record<string, Record<string, ActedAction>>;
  /** When the plan the job runs was read from the cluster (absent: planned from the versions alone). */
  plannedAt?: number;
  /** Set for a rollback job (issue 10): the control plane goes back one minor with rollbackConfig. */
  rollback?: RollbackJobInfo;
  /** The guards' evaluations and the stop a breach put on the job (issue 29); absent until a guard is evaluated. */
  guards?: GuardJobState;
}

/**
 * Guards in a job's data: each guard's last evaluation, the hold a breach put on the job (answered at the breach
 * card, a gate), and the guards a person forced past (ignored until they have recovered once).
 */
export interface GuardJobState {
  tracks: Record<string, GuardTrack>;
  /** Open while the job is stopped by a breach: the breach card (gate `guard-<seq>`) waits for an answer. */
  hold?: { seq: number; guards: string[]; since: number; step?: string };
  /** The last hold's number, so each breach gets a card of its own. */
  holdSeq: number;
  overridden: Record<string, { by: string; reason?: string; at: number }>;
}

export interface RollbackJobInfo {
  /** rollbackConfig.timeoutMinutes (clusters.yaml rollbackTimeoutMinutes, default 720). */
  timeoutMinutes: number;
  /** The end of EKS's 7-day window when the job started (epoch ms). */
  until?: number;
  /** The upgrade job whose summary card offered it, when it came from that button. */
  fromJob?: string;
  /** What the upgrade being undone recorded about the EC2NodeClasses before it changed them (karpenter-originals.ts). */
  karpenter?: RecordedKarpenterClasses;
}

/**
 * The amiSelectorTerms an upgrade job's Karpenter step recorded for each EC2NodeClass before changing it, as a
 * rollback reads them (src/planning/karpenter-originals.ts).
 */
export interface RecordedKarpenterClasses {
  /** The upgrade job that recorded them. */
  jobId: string;
  /** The version that job moved the classes to (the version the rollback leaves). */
  version: string;
  /** Per EC2NodeClass: its amiSelectorTerms before that job changed them. */
  classes: Record<string, { terms: Array<Record<string, unknown>> }>;
}

/** The last moment a successful upgrade job may be rolled back (saved by its control-plane step), if known. */
export function rollbackUntilOf(data: UpgradeJobData): number | undefined {
  const value = Object.values(data.stepState).map((state) => state.rollbackUntil).filter((until): until is number => typeof until === 'number');
  return value.length > 0 ? Math.max(...value) : undefined;
}

export const TERMINAL_STATES: ReadonlySet<UpgradeState> = new Set(['succeeded', 'failed', 'aborted']);

export function isTerminal(state: UpgradeState): boolean {
  return TERMINAL_STATES.has(state);
}

export function currentStepOf(data: UpgradeJobData): PlannedStep | undefined {
  return data.steps[data.stepIndex];
}

/** "control plane → 1.31", or how the job ended once there is no current step. */
export function currentStepTitle(data: UpgradeJobData): string {
  const step = currentStepOf(data);
  if (step) return step.title;
  if (data.state === 'succeeded') return 'done';
  return data.state;
}

export function statusCardOf(data: UpgradeJobData, now: number): StatusCardModel {
  return {
    jobId: data.jobId,
    cluster: data.cluster,
    from: data.from,
    to: data.to,
    state: data.state,
    currentStep: currentStepTitle(data),
    progress: data.progress,
    startedBy: data.requestedBy,
    startedAt: data.startedAt,
    updatedAt: now,
    dryRun: data.dryRun,
    ...(data.rollback ? { rollback: true } : {}),
    ...(data.guards && Object.keys(data.guards.tracks).length > 0
      ? { guards: Object.entries(data.guards.tracks).map(([name, track]) => ({ name, status: track.status, at: track.at })) }
      : {}),
  };
}

/**
 * The Roll back offer of an upgrade job (issue 10): one minor back from where the job left the control plane, until
 * 7 days after EKS dated that control-plane update. None for dry runs, rollbacks, or jobs that moved no control plane.
 */
export function rollbackOfferOf(data: UpgradeJobData): RollbackOffer | undefined {
  if (data.dryRun || data.rollback) return undefined;
  const until = rollbackUntilOf(data);
  const reached = [...data.steps].reverse().find((step) => step.kind === 'control-plane' && data.stepRuns[step.id]?.outcome === 'done');
  const to = reached ? previousMinor(reached.to) : undefined;
  if (until === undefined || !to || !reached) return undefined;
  return { jobId: data.jobId, cluster: data.cluster, to, until };
}
