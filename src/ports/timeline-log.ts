import type { TimelineEvent } from './timeline-event.js';

/**
 * The job's append-only timeline, as the engine and the export use it (implemented over Redis in
 * src/store/timeline-log.ts).
 */

export interface TimelineEntry {
  key: string;
  event: TimelineEvent;
}

export interface TimelineLog {
  /** true if appended now, false if an entry with this key was already there. */
  append(jobId: string, key: string, event: TimelineEvent): Promise<boolean>;
  /** The entries in the order they were appended, from the `from`-th on (default: all). */
  read(jobId: string, from?: number): Promise<TimelineEntry[]>;
}
