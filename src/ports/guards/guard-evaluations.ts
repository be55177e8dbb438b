/**
 * The last evaluation of each guard of a cluster (issue 29), as the upgrade job or a rollout's soak made it: what
 * `status <cluster>` shows. Guards are read only while a job or a soak runs, so `status` reads this record and never
 * the guards themselves. Implemented over Redis in src/store/guard-evaluation-store.ts. The fields are a guard's
 * track (src/planning/guards/evaluate-guard.ts) as the evaluation left it.
 */
export interface GuardEvaluation {
  status: 'healthy' | 'breached' | 'unknown';
  /** When the guard was read (the bot's clock, ms). */
  at: number;
  /** Since when it has had this status. */
  since: number;
  /** The value that decides (the worst series, the alerts or alarms counted) and what it is of. */
  value?: number;
  subject?: string;
  /** Why it is unknown. */
  reason?: string;
  troubleSince?: number;
  /** Who evaluated it, in words: "upgrade job `u1a2b3c4`", "the soak of wave 1 of rollout `r1a2b3c4`". */
  by: string;
}

export interface GuardEvaluationStore {
  /** Saves these guards' evaluations for `cluster` (the other guards keep theirs). */
  record(cluster: string, evaluations: Record<string, GuardEvaluation>): Promise<void>;
  /** The last evaluation of each guard of `cluster` that has one. */
  last(cluster: string): Promise<Record<string, GuardEvaluation>>;
}

/** A guard's track as the evaluation to record: its state, value and times, without the per-series bookkeeping. */
export function evaluationOf(track: Omit<GuardEvaluation, 'by'> & { holding?: unknown }, by: string): GuardEvaluation {
  const { holding: _holding, ...kept } = track;
  return { ...kept, by };
}
