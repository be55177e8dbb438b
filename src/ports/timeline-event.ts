/**
 * What happens during an upgrade, as data. Job steps emit these; the Slack renderer turns them into thread
 * replies, the Markdown exporter into the timeline file. Append new kinds at the end of the union.
 */
export type UpgradeState =
  | 'queued'
  | 'running'
  | 'waiting-approval'
  | 'paused'
  | 'succeeded'
  | 'failed'
  | 'aborted';

export type GateAction = 'continue' | 'abort' | 'force' | 'remedy';

export interface GateModel {
  jobId: string;
  /** Stable within a job, e.g. "h1-control-plane" or "h1-ng-blue-mng-pdb". */
  gateId: string;
  /** Bumped each time the same gate is re-opened, so clicks on an older card are recognised as stale. */
  revision: number;
  title: string;
  /** Lines of context (mrkdwn), e.g. the pods and PDBs that block a drain. */
  details: string[];
  /**
   * What blocks, when the gate is asked because something does (a drain held by a PDB, blocking findings, a failed
   * update): one line per problem, for reports that list them (a rehearsal's "What would block"). Empty for an
   * approval nothing blocks. Set where the gate is opened (jobs/engine/gate-step.ts).
   */
  problems?: string[];
  actions: GateAction[];
  /** Label of the safe remedy button, when actions includes 'remedy' (e.g. "Scale orders to 2 replicas"). */
  remedyLabel?: string;
  /** Findings the card offers Waive… on (the preflight's Force gate): what a waiver request needs. */
  waivable?: Array<{ cluster: string; code: string; resource: string; title: string }>;
  /**
   * Answered by no person but by this ("the rehearsal (--answers continue)"): the card carries no button and no
   * Waive…, and its answer line says the answer was automatic (a rehearsal's gates, issue 23).
   */
  automatic?: string;
  /** The Continue button's label when it means something else here: "Resume" on a guard's breach card (issue 29). */
  continueLabel?: string;
  /**
   * The breach card's Roll back (issue 29): abort the held upgrade at its safe point and start rolling back to
   * `rollback.to` in one click (src/slack/actions/breach-rollback-action.ts).
   */
  rollback?: RollbackOffer;
}

export interface StatusCardModel {
  jobId: string;
  cluster: string;
  from: string;
  to: string;
  state: UpgradeState;
  currentStep: string;
  progress?: string;
  startedBy: string;
  startedAt: number;
  updatedAt: number;
  dryRun: boolean;
  /** A rollback job (issue 10): the card says "EKS rollback". */
  rollback?: boolean;
  /** Each guard's last evaluation (issue 29), when the cluster has guards and they have been read. */
  guards?: Array<{ name: string; status: 'healthy' | 'breached' | 'unknown'; at: number }>;
  /**
   * A rehearsal on a simulated twin (issue 15): the card says REHEARSAL and offers no controls (the rehearsal's own
   * engine answers its gates; nothing in Slack can pause or abort it).
   */
  rehearsal?: boolean;
}

/**
 * The "Roll back to N-1" offer on a successful upgrade's summary card and on a failed verify card (issue 10): the
 * button runs `/eks-upgrade rollback <cluster> --to <to>` for the clicker; `until` is the end of EKS's 7-day window.
 */
export interface RollbackOffer {
  jobId: string;
  cluster: string;
  to: string;
  until: number;
}

export type TimelineEvent =
  | { kind: 'step-started'; at: number; step: string; title: string }
  | { kind: 'step-finished'; at: number; step: string; title: string; durationMs: number; summary?: string }
  | { kind: 'step-failed'; at: number; step: string; title: string; error: string; remedy?: string; rollback?: RollbackOffer }
  | { kind: 'progress'; at: number; step: string; text: string }
  /** `findings`: the preflight's list of findings (a plan's, not a wait), which a rehearsal does not report as a block. */
  | { kind: 'note'; at: number; level: 'info' | 'warning'; text: string; topic?: 'findings' }
  | { kind: 'gate-opened'; at: number; gate: GateModel }
  | {
      kind: 'gate-answered';
      at: number;
      gate: GateModel;
      action: GateAction | 'timeout';
      by: string;
      reason?: string;
    }
  | {
      kind: 'summary';
      at: number;
      state: UpgradeState;
      from: string;
      to: string;
      steps: Array<{ title: string; durationMs: number; outcome: string }>;
      lines: string[];
      /** Forces, approvals, waivers applied and steps skipped, each with who and why (jobs/worker/finish-job.ts). */
      decisions?: string[];
      rollback?: RollbackOffer;
      /** The summary of a rollback job: "Rollback 1.31 → 1.30". */
      rollbackJob?: boolean;
      /** The summary of a rehearsal on a simulated twin: "REHEARSAL of the upgrade 1.25 → 1.26". */
      rehearsal?: boolean;
    };

/** How a step's own thread message reads: ▶️ running (with its latest progress line), then ✅ / ❌ / ⏹️. */
export type StepMessageState = 'running' | 'done' | 'skipped' | 'dry-run' | 'failed' | 'aborted';

/**
 * One step's message in the thread, posted when the step starts and edited in place as it goes (progress) and when
 * it ends. Built from the step lifecycle events (step-started, progress, step-finished, step-failed) and the job's
 * step run, so every step gets one without doing anything.
 */
export interface StepMessageModel {
  step: string;
  title: string;
  state: StepMessageState;
  startedAt: number;
  /** When this version of the message was made (the event's time). */
  at: number;
  /** The latest progress line while running ("NodeClaims replaced 143/500 in default"). */
  progress?: string;
  /** Set once the step has ended. */
  durationMs?: number;
  summary?: string;
  /** Why the step failed (the failure itself is also its own reply, with what to do). */
  error?: string;
  /**
   * 'board': a message a step keeps in place beside its own (the Karpenter step's blocked nodes per NodePool). It is
   * news, not a step, so its headline says what it shows ("⚠️ Blocked disruptions in NodePool default") rather than
   * "started" / "finished in".
   */
  shows?: 'board';
}
