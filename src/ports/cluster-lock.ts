/**
 * One upgrade per cluster, as `start` and the engine use it (implemented over Redis in src/store/cluster-lock.ts).
 */

export interface StartIntent {
  jobId: string;
  cluster: string;
  from: string;
  to: string;
  requestedBy: string;
  channel: string;
  dryRun: boolean;
  at: number;
}

export interface ClusterLock {
  /** Takes the lock for intent.jobId; returns the job id holding it (equal to intent.jobId on success). */
  acquire(intent: StartIntent): Promise<string>;
  /** Replaces a stale holder; false if someone else changed the lock meanwhile. */
  takeOver(staleJobId: string, intent: StartIntent): Promise<boolean>;
  release(cluster: string, jobId: string): Promise<void>;
  holder(cluster: string): Promise<string | undefined>;
  intent(jobId: string): Promise<StartIntent | undefined>;
}
