import type { ThreadRef } from './slack/thread-port.js';
import type { UpgradePlan } from './upgrade-plan.js';
import type { GateAction, UpgradeState } from './timeline-event.js';

/**
 * What the Slack surface can ask of the upgrade engine. Implemented over BullMQ + Redis in
 * src/store/queue-upgrade-control.ts. Authorization is the caller's job (who may start / approve comes from
 * clusters.yaml); this layer enforces state rules (one upgrade per cluster, idempotent gate answers).
 */
export interface StartRequest {
  cluster: string;
  region: string;
  to: string;
  requestedBy: string;
  channel: string;
  dryRun: boolean;
  /** A rollback (issue 10) rather than an upgrade: `to` is one minor back, and the steps run in rollback order. */
  rollback?: { timeoutMinutes: number; until?: number; fromJob?: string };
}

export interface JobSummary {
  jobId: string;
  cluster: string;
  from: string;
  to: string;
  state: UpgradeState;
  currentStep: string;
  requestedBy: string;
  thread: ThreadRef;
  startedAt: number;
  finishedAt?: number;
  dryRun: boolean;
  /** The gate waiting for an answer, if any. */
  openGate?: { gateId: string; revision: number; title: string };
}

export type StartResult =
  | { ok: true; job: JobSummary }
  | { ok: false; reason: 'already-running'; job: JobSummary };

export interface GateAnswer {
  jobId: string;
  gateId: string;
  revision: number;
  action: GateAction;
  userId: string;
  reason?: string;
}

export type GateAnswerResult =
  | { outcome: 'accepted' }
  /** Someone (maybe the same person) already answered this gate revision. */
  | { outcome: 'already-answered'; by: string; action: GateAction | 'timeout'; at: number }
  /** The click came from an older card revision or a gate that is no longer open. */
  | { outcome: 'stale' }
  | { outcome: 'unknown-job' };

export type ControlResult = { ok: true; message: string } | { ok: false; message: string };

export interface UpgradeControl {
  /**
   * Starts the upgrade from `from` to request.to. With `plan` (what `start` read and showed), the job runs exactly
   * its steps and actions; without it, every step kind runs and each step decides from the world.
   */
  start(request: StartRequest, from: string, plan?: UpgradePlan): Promise<StartResult>;
  getJob(jobId: string): Promise<JobSummary | undefined>;
  findActive(cluster: string): Promise<JobSummary | undefined>;
  listJobs(cluster?: string, limit?: number): Promise<JobSummary[]>;
  answerGate(answer: GateAnswer): Promise<GateAnswerResult>;
  pause(jobId: string, userId: string): Promise<ControlResult>;
  resume(jobId: string, userId: string): Promise<ControlResult>;
  abort(jobId: string, userId: string): Promise<ControlResult>;
  /** Uploads the timeline so far into the job's thread as a Markdown file (running or finished jobs alike). */
  exportTimeline(jobId: string, userId: string): Promise<ControlResult>;
}
