import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import type { ThreadRef } from '../../src/ports/slack/thread-port.js';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { outboxMetadata } from '../../src/slack/thread/find-posted-message.js';
import type { OutboxEntry } from '../../src/slack/thread/outbox-entry.js';
import { createSlackThreadPort, type SlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import type { GateModel, StatusCardModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * Issue 5, "posts queue and retry … without duplicates": Slack performed the post but its answer never reached the
 * bot (HTTP 500 after the post, the connection dropped on the way back, the worker killed before Redis recorded
 * it). The reply must appear once, later replies must keep their order, and a gate card must still be found for
 * the chat.update that records its answer.
 */
const TOKEN = 'xoxb-5555-6666-lost-answer-token';
const CHANNEL = 'C0OPS';
const t0 = Date.UTC(2024, 4, 1, 15, 0, 0);

const card: StatusCardModel = {
  jobId: 'job-1', cluster: 'demo', from: '1.30', to: '1.31', state: 'running', currentStep: 'Preflight',
  startedBy: 'U0REQ', startedAt: t0, updatedAt: t0, dryRun: false,
};
const note = (i: number): TimelineEvent => ({ kind: 'note', at: t0 + i * 1000, level: 'info', text: `event number ${i}` });
const texts = (...numbers: number[]) => numbers.map((i) => `ℹ️ event number ${i}`);
const gate: GateModel = {
  jobId: 'job-1', gateId: 'h1-control-plane', revision: 1, title: 'Upgrade the control plane of demo to 1.31?',
  details: ['Preflight passed with 0 errors.'], actions: ['continue', 'abort'],
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup() {
  const fake = await startFakeSlack({ signingSecret: 'test-signing-secret' });
  const prefix = freshPrefix('thread-lost');
  const logLines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } }),
  });
  const client = createSlackWebClient(TOKEN, { apiUrl: fake.apiUrl, logger });
  const queues = createQueueKit({ url: redisUrl }, prefix);
  const redis = new Redis(redisUrl);
  const ports: SlackThreadPort[] = [];
  const makePort = (overrides: { lockTtlMs?: number } = {}) => {
    const port = createSlackThreadPort({
      client, queues, logger, minIntervalMs: 30, retry: { baseMs: 20, maxMs: 200 }, pollIntervalMs: 50, ...overrides,
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
  return { fake, client, redis, prefix, makePort, logLines };
}

const replies = (fake: FakeSlack, thread: ThreadRef) => fake.message(thread.channel, thread.ts)!.replies.filter((r) => !r.deleted);
const replyTexts = (fake: FakeSlack, thread: ThreadRef) => replies(fake, thread).map((r) => r.text);
const hasActions = (blocks: unknown[] | undefined) => (blocks ?? []).some((b) => (b as { type: string }).type === 'actions');

describe('Slack thread outbox: a post whose answer was lost', () => {
  it('HTTP 500 after Slack posted the reply: it appears once, and later replies keep their order', async () => {
    const { fake, makePort, logLines } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 500, applyFirst: true });
    for (let i = 1; i <= 4; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2, 3, 4));
    expect(fake.calls.some((c) => c.method === 'chat.postMessage' && c.status === 500)).toBe(true);
    // It asked Slack instead of posting again, and found the post by the id in its metadata.
    expect(fake.okCalls('conversations.replies').length).toBeGreaterThanOrEqual(1);
    expect(replies(fake, thread)[0].metadata).toMatchObject({ event_type: 'eks_upgrade_outbox', event_payload: { key: 'n1' } });
    expect(logLines.join('')).toContain('Slack already had the post');
  });

  it('connection dropped after Slack posted the reply: it appears once', async () => {
    const { fake, makePort } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { disconnect: true, applyFirst: true });
    for (let i = 1; i <= 3; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2, 3));
    expect(fake.calls.some((c) => c.method === 'chat.postMessage' && c.error === 'disconnected')).toBe(true);
  });

  it('a 500 before Slack posted anything: the look-up finds nothing and the reply is posted once', async () => {
    const { fake, makePort } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 503 });
    // Slack is still shaky when asked: the look-up is retried; nothing is posted until Slack has answered it.
    fake.failNext('conversations.replies', { status: 500 });
    for (let i = 1; i <= 2; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2));
    const order = fake.calls.filter((c) => c.method !== 'chat.update').slice(1).map((c) => `${c.method} ${c.status}`);
    expect(order.slice(0, 4)).toEqual(['chat.postMessage 503', 'conversations.replies 500', 'conversations.replies 200', 'chat.postMessage 200']);
  });

  it('a gate card posted under a lost answer is still edited in place when the gate is answered', async () => {
    const { fake, makePort } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 500, applyFirst: true });
    await port.postEvent(thread, 'gate:h1-control-plane:1', { kind: 'gate-opened', at: t0 + 1000, gate });
    await port.drained();
    const [gateCard] = replies(fake, thread);
    expect(replies(fake, thread)).toHaveLength(1);
    expect(hasActions(gateCard.blocks)).toBe(true);

    await port.postEvent(thread, 'gate:h1-control-plane:1', { kind: 'gate-answered', at: t0 + 60_000, gate, action: 'continue', by: 'U0APP' });
    await port.drained();
    expect(replies(fake, thread)).toHaveLength(1);
    expect(fake.okCalls('chat.update').filter((c) => c.body.ts === gateCard.ts)).toHaveLength(1);
    expect(hasActions(replies(fake, thread)[0].blocks)).toBe(false);
    expect(JSON.stringify(replies(fake, thread)[0].blocks)).toContain('Approved by <@U0APP>');
  });

  it('a worker killed after Slack took its post (before Redis recorded it): the next worker does not post it again', async () => {
    const { fake, client, redis, prefix, makePort } = await setup();
    const first = makePort();
    const thread = await first.openThread(CHANNEL, card);
    for (let i = 1; i <= 3; i++) await first.postEvent(thread, `n${i}`, note(i));
    // What a worker SIGKILLed at that moment leaves: entry 1 in flight, its post in Slack, its lease on the channel.
    const raw = (await redis.lpop(`${prefix}:thread:q:${CHANNEL}`))!;
    await redis.set(`${prefix}:thread:inflight:${CHANNEL}`, raw);
    const entry = JSON.parse(raw) as Extract<OutboxEntry, { op: 'event' }>;
    await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread.ts, text: texts(1)[0], metadata: outboxMetadata(entry.id, entry.key) });
    await redis.set(`${prefix}:thread:lock:${CHANNEL}`, 'dead-worker', 'PX', 300);

    const survivor = makePort({ lockTtlMs: 300 });
    await survivor.start();
    await survivor.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2, 3));
    expect(fake.okCalls('conversations.replies')).toHaveLength(1);
  });

  it('a worker killed before its post reached Slack: the next worker checks, then posts it once', async () => {
    const { fake, redis, prefix, makePort } = await setup();
    const first = makePort();
    const thread = await first.openThread(CHANNEL, card);
    for (let i = 1; i <= 2; i++) await first.postEvent(thread, `n${i}`, note(i));
    await redis.set(`${prefix}:thread:inflight:${CHANNEL}`, (await redis.lpop(`${prefix}:thread:q:${CHANNEL}`))!);
    const survivor = makePort();
    await survivor.start();
    await survivor.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2));
  });

  it('when Slack will not say (missing_scope on conversations.replies), posts again rather than stall the thread', async () => {
    const { fake, makePort, logLines } = await setup();
    const port = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 500 });
    fake.failNext('conversations.replies', { error: 'missing_scope' });
    for (let i = 1; i <= 2; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replyTexts(fake, thread)).toEqual(texts(1, 2));
    expect(logLines.join('')).toContain('posting it again, which may show it twice');
  });

  it('openThread: a parent card whose answer was lost is found in the channel, not posted twice', async () => {
    const { fake, makePort } = await setup();
    const port = makePort();
    fake.failNext('chat.postMessage', { status: 502, applyFirst: true });
    const thread = await port.openThread(CHANNEL, card);
    expect(fake.messages(CHANNEL)).toHaveLength(1);
    expect(fake.messages(CHANNEL)[0].ts).toBe(thread.ts);
    expect(fake.okCalls('conversations.history')).toHaveLength(1);
  });
});
