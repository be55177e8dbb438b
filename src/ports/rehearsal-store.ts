/**
 * Results of rehearsals (issue 15), kept so a real `start` can require a recent successful one of the same plan
 * (`requireRehearsal` in clusters.yaml). Implemented over Redis in src/store/rehearsal-store.ts.
 */
export interface RehearsalRecord {
  cluster: string;
  from: string;
  to: string;
  /** planHash() of the plan the rehearsal ran (src/planning/planner/plan-hash.ts). */
  planHash: string;
  /** The rehearsed job's final state: only `succeeded` counts for requireRehearsal. */
  state: string;
  answers: string;
  /** Epoch ms the rehearsal ended. */
  at: number;
}

export interface RehearsalStore {
  record(result: RehearsalRecord): Promise<void>;
  /** The newest rehearsal of `cluster` to `to`, if any is kept. */
  latest(cluster: string, to: string): Promise<RehearsalRecord | undefined>;
}

/** A rehearsal asked for in Slack, as the worker runs it. */
export interface RehearsalRequest {
  cluster: string;
  region: string;
  to: string;
  answers: 'continue' | 'remedy' | 'stop';
  channel: string;
  requestedBy: string;
}

export interface RehearsalQueue {
  /** Queues the rehearsal for a worker; resolves with its id. */
  enqueue(request: RehearsalRequest): Promise<string>;
}
