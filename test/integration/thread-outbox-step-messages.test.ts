import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import type { ThreadRef } from '../../src/ports/slack/thread-port.js';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { outboxMetadata } from '../../src/slack/thread/find-posted-message.js';
import { upsertPostId, type OutboxEntry } from '../../src/slack/thread/outbox-entry.js';
import { createSlackThreadPort, type SlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import type { StatusCardModel, StepMessageModel } from '../../src/ports/timeline-event.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * Issue 17, "one message per step": the outbox's upsert posts a step's message once and edits it in place as the
 * step goes (▶️ started → ⏳ progress → ✅ finished in …), in thread order with the other replies, never twice and
 * never backwards — across restarts and a worker killed between Slack's answer and Redis — with progress edits
 * held to one per interval per step.
 */
const TOKEN = 'xoxb-1717-step-messages-token';
const CHANNEL = 'C0STEPS';
const t0 = Date.UTC(2026, 11, 1, 2, 0, 0);
const KEY = 'job-1:h1-karpenter:message';

const card: StatusCardModel = {
  jobId: 'job-1', cluster: 'demo', from: '1.30', to: '1.31', state: 'running', currentStep: 'Karpenter',
  startedBy: 'U0REQ', startedAt: t0, updatedAt: t0, dryRun: false,
};
const base = { step: 'h1-karpenter', title: 'Karpenter nodes to 1.31', startedAt: t0 };
const started: StepMessageModel = { ...base, state: 'running', at: t0 };
const progress = (n: number): StepMessageModel => ({ ...base, state: 'running', at: t0 + n * 1000, progress: `NodeClaims replaced ${n}/500 in default` });
const finished: StepMessageModel = { ...base, state: 'done', at: t0 + 252_000, durationMs: 252_000, summary: 'NodeClaims replaced 500/500 in default' };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup() {
  const fake = await startFakeSlack({ signingSecret: 'test-signing-secret' });
  const prefix = freshPrefix('thread-steps');
  const client = createSlackWebClient(TOKEN, { apiUrl: fake.apiUrl, logger: createLogger({ level: 'silent' }) });
  const queues = createQueueKit({ url: redisUrl }, prefix);
  const redis = new Redis(redisUrl);
  const ports: SlackThreadPort[] = [];
  const makePort = (overrides: { lockTtlMs?: number; progressEditIntervalMs?: number } = {}) => {
    const port = createSlackThreadPort({
      client, queues, logger: createLogger({ level: 'silent' }), minIntervalMs: 20,
      retry: { baseMs: 20, maxMs: 200 }, pollIntervalMs: 50, progressEditIntervalMs: 0, ...overrides,
    });
    ports.push(port);
    return port;
  };
  cleanups.push(async () => {
    for (const p of ports) await p.close();
    await queues.close();
    await fake.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return { fake, client, redis, prefix, makePort };
}

const replies = (fake: FakeSlack, thread: ThreadRef) => fake.message(thread.channel, thread.ts)!.replies.filter((r) => !r.deleted);
const posts = (fake: FakeSlack) => fake.okCalls('chat.postMessage').filter((c) => c.body.thread_ts !== undefined);

describe('Slack thread outbox: one message per step, edited in place', () => {
  it('posts the step once, edits it through its progress to ✅ with the duration, in order with other replies', async () => {
    const { fake, makePort } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    await port.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started');
    await port.drained();
    await port.postEvent(thread, 'notice', { kind: 'note', at: t0 + 5000, level: 'warning', text: 'Node ip-10-0-0-1 is blocked by PDB api-pdb' });
    for (const n of [143, 144]) {
      await port.upsertStepMessage(thread, KEY, progress(n));
      await port.drained();
    }
    await port.upsertStepMessage(thread, KEY, finished, 'job-1:h1-karpenter:finished');
    // A step re-run after a crash says "started" again, and a progress arrives late: the message never goes back.
    await port.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started-again');
    await port.upsertStepMessage(thread, KEY, progress(499));
    await port.drained();

    const [step, notice] = replies(fake, thread);
    expect(replies(fake, thread)).toHaveLength(2);
    expect(posts(fake)).toHaveLength(2);
    expect(notice.text).toMatch(/blocked by PDB api-pdb/);
    expect(step.versions.map((v) => v.text)).toEqual([
      '▶️ Karpenter nodes to 1.31 started',
      '▶️ Karpenter nodes to 1.31 started — ⏳ NodeClaims replaced 143/500 in default',
      '▶️ Karpenter nodes to 1.31 started — ⏳ NodeClaims replaced 144/500 in default',
      '✅ Karpenter nodes to 1.31 finished in 4m 12s — NodeClaims replaced 500/500 in default',
    ]);
    expect(fake.okCalls('chat.update').filter((c) => c.body.ts === step.ts)).toHaveLength(3);
  });

  it('a restarted bot edits the same message: its ts is kept with the outbox', async () => {
    const { fake, makePort } = await setup();
    const first = makePort();
    const thread = await first.openThread(CHANNEL, card);
    await first.start();
    await first.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started');
    await first.drained();
    await first.close();

    const second = makePort();
    await second.start();
    await second.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started');
    await second.upsertStepMessage(thread, KEY, finished, 'job-1:h1-karpenter:finished');
    await second.drained();
    expect(replies(fake, thread)).toHaveLength(1);
    expect(replies(fake, thread)[0].text).toMatch(/^✅ Karpenter nodes to 1\.31 finished in 4m 12s/);
  });

  it('a worker killed after Slack took the step post (before Redis had its ts): the next one edits it, not posts it again', async () => {
    const { fake, client, redis, prefix, makePort } = await setup();
    const first = makePort();
    const thread = await first.openThread(CHANNEL, card);
    await first.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started');
    await first.postEvent(thread, 'after', { kind: 'note', at: t0 + 1000, level: 'info', text: 'the next reply' });
    // What a worker SIGKILLed at that moment leaves: the step entry in flight, its post in Slack, no ts in Redis.
    const raw = (await redis.lpop(`${prefix}:thread:q:${CHANNEL}`))!;
    await redis.set(`${prefix}:thread:inflight:${CHANNEL}`, raw);
    const entry = JSON.parse(raw) as Extract<OutboxEntry, { op: 'upsert' }>;
    expect(entry.op).toBe('upsert');
    await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread.ts, text: '▶️ Karpenter nodes to 1.31 started', metadata: outboxMetadata(upsertPostId(KEY), KEY) });
    await redis.set(`${prefix}:thread:lock:${CHANNEL}`, 'dead-worker', 'PX', 300);

    const survivor = makePort({ lockTtlMs: 300 });
    await survivor.start();
    await survivor.drained();
    await survivor.upsertStepMessage(thread, KEY, finished, 'job-1:h1-karpenter:finished');
    await survivor.drained();
    expect(replies(fake, thread).map((r) => r.text)).toEqual([
      '✅ Karpenter nodes to 1.31 finished in 4m 12s — NodeClaims replaced 500/500 in default',
      'ℹ️ the next reply',
    ]);
    expect(fake.okCalls('conversations.replies')).toHaveLength(1);
  });

  it('holds progress edits of a step to one per interval; the newest is shown, and the end goes at once', async () => {
    const { fake, makePort } = await setup();
    const port = makePort({ progressEditIntervalMs: 400 });
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    await port.upsertStepMessage(thread, KEY, started, 'job-1:h1-karpenter:started');
    for (let n = 1; n <= 200; n++) await port.upsertStepMessage(thread, KEY, progress(n));
    // The newest progress shows once the interval is over, without another call from the step.
    const step = await fake.waitFor((f) => {
      const reply = f.message(CHANNEL, thread.ts)?.replies[0];
      return reply?.text.includes('200/500') && reply;
    }, { timeoutMs: 5_000 });
    expect(fake.okCalls('chat.update').filter((c) => c.body.ts === step.ts).length).toBeLessThanOrEqual(2);
    await port.upsertStepMessage(thread, KEY, finished, 'job-1:h1-karpenter:finished');
    await port.drained();
    expect(posts(fake)).toHaveLength(1);
    expect(replies(fake, thread)[0].text).toMatch(/^✅ /);
    expect(fake.okCalls('chat.update').filter((c) => c.body.ts === step.ts).length).toBeLessThanOrEqual(3);
  });
});
