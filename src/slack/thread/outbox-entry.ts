import type { GateModel, StepMessageModel, TimelineEvent } from '../../ports/timeline-event.js';

/**
 * One unit of work in a channel's outbox, stored as JSON in Redis. Entries carry everything needed to deliver them
 * (the event, not a rendered message), so a worker running newer renderer code after a restart renders them anew.
 */
export type OutboxEntry =
  | {
      id: string;
      op: 'event';
      channel: string;
      threadTs: string;
      key: string;
      event: TimelineEvent;
      /** Set on 'progress' entries: `<threadTs>|<step>`; a newer progress of the same step replaces a queued one. */
      coalesce?: string;
    }
  /**
   * A reply kept current in place under `key` (a step's message): posted the first time, then chat.update of the
   * ts stored for the key. A newer upsert of the same key replaces a queued one where it stands.
   */
  | {
      id: string;
      op: 'upsert';
      channel: string;
      threadTs: string;
      key: string;
      message: StepMessageModel;
      /** started 0 < progress 1 < ended 2: an upsert ranked below what was already queued for the key is dropped. */
      rank: number;
    }
  /** The parent card: its latest state lives beside the queue, so one entry sends whatever is newest. */
  | { id: string; op: 'card'; channel: string; threadTs: string }
  | {
      id: string;
      op: 'upload';
      channel: string;
      threadTs: string;
      key: string;
      filename: string;
      title: string;
      content: string;
    };

export function parseOutboxEntry(raw: string): OutboxEntry | undefined {
  try {
    const value = JSON.parse(raw) as OutboxEntry;
    return value && typeof value === 'object' && typeof value.channel === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What a log line may say about an entry: never its content (a Markdown export can be large). */
export function describeEntry(entry: OutboxEntry): Record<string, string> {
  const base = { op: entry.op, channel: entry.channel, threadTs: entry.threadTs };
  if (entry.op === 'event') return { ...base, key: entry.key, kind: entry.event.kind };
  if (entry.op === 'upsert') return { ...base, key: entry.key, state: entry.message.state };
  if (entry.op === 'upload') return { ...base, key: entry.key, filename: entry.filename };
  return base;
}

export function gateIdentity(gate: Pick<GateModel, 'jobId' | 'gateId' | 'revision'>): string {
  return `${gate.jobId}:${gate.gateId}:${gate.revision}`;
}

/**
 * The post id an upsert's message carries in its metadata: the same for every version of the key, so a post whose
 * answer was lost is found by whichever version of the message comes next.
 */
export function upsertPostId(key: string): string {
  return `upsert:${key}`;
}

/** The rank of a step message version: started 0, progress 1, ended 2. */
export function stepMessageRank(message: StepMessageModel): number {
  if (message.state !== 'running') return 2;
  return message.progress ? 1 : 0;
}
