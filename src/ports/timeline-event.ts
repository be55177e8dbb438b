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
  actions: GateAction[];
  /** Label of the safe remedy button, when actions includes 'remedy' (e.g. "Scale orders to 2 replicas"). */
  remedyLabel?: string;
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
}

export type TimelineEvent =
  | { kind: 'step-started'; at: number; step: string; title: string }
  | { kind: 'step-finished'; at: number; step: string; title: string; durationMs: number; summary?: string }
  | { kind: 'step-failed'; at: number; step: string; title: string; error: string; remedy?: string }
  | { kind: 'progress'; at: number; step: string; text: string }
  | { kind: 'note'; at: number; level: 'info' | 'warning'; text: string }
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
    };
