/**
 * Pause / resume / abort requests for a running job, as the engine reads them (implemented over Redis in
 * src/store/job-controls-store.ts).
 */

export interface JobControls {
  paused: boolean;
  /** Bumped on every pause, so the processor announces each pause / resume exactly once. */
  pauseSeq: number;
  pausedBy?: string;
  pausedAt?: number;
  resumedBy?: string;
  resumedAt?: number;
  abort?: { by: string; at: number };
}

export interface JobControlsStore {
  read(jobId: string): Promise<JobControls>;
  /** false when the job was already paused. */
  pause(jobId: string, by: string, at: number): Promise<boolean>;
  /** false when the job was not paused. */
  resume(jobId: string, by: string, at: number): Promise<boolean>;
  /** false when an abort was already requested (the first one stands). */
  abort(jobId: string, by: string, at: number): Promise<boolean>;
}
