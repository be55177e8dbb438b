import type { ThreadPort, ThreadRef } from '../../src/ports/slack/thread-port.js';
import type { StatusCardModel, StepMessageModel, TimelineEvent } from '../../src/ports/timeline-event.js';

/**
 * An in-memory ThreadPort that records what the engine asked the thread to show, with the same dedupe rules as the
 * real one (one post per key; a 'gate-answered' event is an update of the card posted under its key; a step's
 * message is one reply edited in place, never taken back to a lower rank: started < progress < ended). Engine tests
 * assert on it what a person reading the thread would see.
 */
export interface RecordedPost {
  thread: ThreadRef;
  key: string;
  event: TimelineEvent;
  /**
   * Set when this is not a reply of its own but a version of a step's one message (the key of that message): the
   * lifecycle event (step-started, progress, step-finished) the version was made from, under the event's key.
   */
  stepMessage?: string;
}

/** The lifecycle event a version of a step message shows (failures are replies of their own, so none here). */
function lifecycleEventOf(message: StepMessageModel): TimelineEvent | undefined {
  const { step, title } = message;
  if (message.state === 'running') {
    return message.progress
      ? { kind: 'progress', at: message.at, step, text: message.progress }
      : { kind: 'step-started', at: message.startedAt, step, title };
  }
  if (message.state === 'failed' || message.state === 'aborted') return undefined;
  return { kind: 'step-finished', at: message.at, step, title, durationMs: message.durationMs ?? 0, summary: message.summary };
}

export interface RecordingThreadPort extends ThreadPort {
  threads: Array<{ channel: string; ref: ThreadRef; card: StatusCardModel }>;
  cards: Array<{ thread: ThreadRef; card: StatusCardModel }>;
  /**
   * What the thread was asked to show after dedupe, in order: replies, and the keyed versions of step messages
   * (marked `stepMessage`; see stepMessages() for the messages as a person sees them).
   */
  posts: RecordedPost[];
  /** Every postEvent call, duplicates included. */
  calls: RecordedPost[];
  /** Each step's message: every version kept (after dedupe and rank), in the order the messages were first posted. */
  stepVersions: Map<string, StepMessageModel[]>;
  /** The latest version of each step's message, in thread order. */
  stepMessages(): StepMessageModel[];
  /** The latest version of one step's message. */
  stepMessage(stepId: string): StepMessageModel | undefined;
  uploads: Array<{ thread: ThreadRef; key: string; filename: string; title: string; content: string }>;
  events(kind?: TimelineEvent['kind']): TimelineEvent[];
  lastCard(): StatusCardModel | undefined;
  /** Resolves when predicate holds over the posts (polled), or rejects after timeoutMs with what was seen. */
  waitFor(predicate: (posts: RecordedPost[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
}

export function createRecordingThreadPort(): RecordingThreadPort {
  let seq = 0;
  const seenKeys = new Set<string>();
  const port: RecordingThreadPort = {
    threads: [],
    cards: [],
    posts: [],
    calls: [],
    uploads: [],
    stepVersions: new Map(),
    async upsertStepMessage(thread, key, message, dedupeKey) {
      if (dedupeKey !== undefined) {
        if (seenKeys.has(`upsert:${dedupeKey}`)) return;
        seenKeys.add(`upsert:${dedupeKey}`);
      }
      const rank = (m: StepMessageModel) => (m.state !== 'running' ? 2 : m.progress ? 1 : 0);
      const versions = port.stepVersions.get(key) ?? [];
      const last = versions.at(-1);
      if (last && rank(message) < rank(last)) return;
      versions.push(message);
      port.stepVersions.set(key, versions);
      const event = dedupeKey === undefined ? undefined : lifecycleEventOf(message);
      if (event) port.posts.push({ thread, key: dedupeKey!, event, stepMessage: key });
    },
    stepMessages() {
      return [...port.stepVersions.values()].map((versions) => versions.at(-1)!);
    },
    stepMessage(stepId) {
      return port.stepMessages().find((message) => message.step === stepId);
    },
    async openThread(channel, card) {
      const ref = { channel, ts: `1700000000.${String(++seq).padStart(6, '0')}` };
      port.threads.push({ channel, ref, card });
      return ref;
    },
    async updateStatusCard(thread, card) {
      port.cards.push({ thread, card });
    },
    async postEvent(thread, key, event) {
      const post = { thread, key, event };
      port.calls.push(post);
      const dedupeKey = event.kind === 'gate-answered' ? `answer:${key}` : `event:${key}`;
      if (seenKeys.has(dedupeKey)) return;
      seenKeys.add(dedupeKey);
      port.posts.push(post);
    },
    async uploadMarkdown(thread, key, filename, title, content) {
      if (port.uploads.some((upload) => upload.key === key)) return;
      port.uploads.push({ thread, key, filename, title, content });
    },
    events(kind) {
      return port.posts.map((post) => post.event).filter((event) => !kind || event.kind === kind);
    },
    lastCard() {
      return port.cards.at(-1)?.card;
    },
    async waitFor(predicate, timeoutMs = 20_000, what = 'the expected thread posts') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(port.posts)) {
        if (Date.now() > deadline) {
          const seen = port.posts.map((post) => `${post.event.kind} ${post.key}`).join('\n  ');
          throw new Error(`timed out waiting for ${what}; the thread has:\n  ${seen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
  return port;
}
