import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import type { ThreadRef } from '../../src/ports/slack/thread-port.js';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { createSlackThreadPort, DEFAULT_POST_BURST, type SlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import type { StatusCardModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import { postsPastBucket } from '../support/post-bucket.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

const TOKEN = 'xoxb-1111-2222-secret-outbox-token';
const CHANNEL = 'C0OPS';
const MIN_INTERVAL_MS = 50;

const card: StatusCardModel = {
  jobId: 'job-1',
  cluster: 'demo',
  from: '1.30',
  to: '1.31',
  state: 'running',
  currentStep: 'Preflight',
  startedBy: 'U0REQ',
  startedAt: Date.UTC(2024, 4, 1, 13, 0, 0),
  updatedAt: Date.UTC(2024, 4, 1, 13, 0, 5),
  dryRun: false,
};

const note = (i: number): TimelineEvent => ({ kind: 'note', at: card.startedAt + i * 1000, level: 'info', text: `event number ${i}` });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup() {
  const fake = await startFakeSlack({ signingSecret: 'test-signing-secret' });
  const prefix = freshPrefix('thread');
  const logLines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  });
  // The bot's one WebClient, as src/start-bot.ts builds it (no retries of its own, 429s rejected at once).
  const client = createSlackWebClient(TOKEN, { apiUrl: fake.apiUrl, logger });
  const queues = createQueueKit({ url: redisUrl }, prefix);
  const ports: SlackThreadPort[] = [];
  const makePort = (overrides: { lockTtlMs?: number; retry?: { baseMs: number; maxMs: number }; minIntervalMs?: number; postBurst?: number; editsPerWindow?: number; editWindowMs?: number } = {}) => {
    const port = createSlackThreadPort({
      client,
      queues,
      logger,
      minIntervalMs: MIN_INTERVAL_MS,
      retry: { baseMs: 20, maxMs: 200 },
      pollIntervalMs: 50,
      ...overrides,
    });
    ports.push(port);
    return port;
  };
  const port = makePort();
  cleanups.push(async () => {
    for (const p of ports) await p.close();
    await queues.close();
    await fake.close();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return { fake, port, makePort, logLines, prefix };
}

function replies(fake: FakeSlack, thread: ThreadRef): string[] {
  return fake.message(thread.channel, thread.ts)!.replies.map((r) => r.text);
}

function postTimes(fake: FakeSlack): number[] {
  return fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === CHANNEL).map((c) => c.at);
}

describe('Slack thread outbox: delivery', () => {
  // chat.postMessage "1 per second" per channel, "short bursts >1 allowed" (https://docs.slack.dev/apis/web-api/rate-limits).
  it('posts replies in order, a burst of three posts and then one per minIntervalMs to the channel, and postEvent never waits for Slack', async () => {
    const { fake, makePort } = await setup();
    // Slack's own pace (6 s in all), long enough that the burst cannot be mistaken for a busy machine's slow calls.
    const interval = 1000;
    const port = makePort({ minIntervalMs: interval });
    const thread = await port.openThread(CHANNEL, card);
    for (let i = 1; i <= 8; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.start();
    await port.drained();
    expect(replies(fake, thread)).toEqual(Array.from({ length: 8 }, (_, i) => `ℹ️ event number ${i + 1}`));
    const times = postTimes(fake);
    expect(times).toHaveLength(9); // parent + 8 replies
    // A token is taken before its call and Slack counts arrivals, so a busy machine's transit jitter is spared.
    expect(postsPastBucket(times, DEFAULT_POST_BURST, interval, 50), JSON.stringify(times)).toEqual([]);
    // The burst was used: the parent and the first two replies went out together, not a pace apart.
    expect(times[2] - times[0]).toBeLessThan(interval);
    // Past it, one post per interval: the nine posts took at least six intervals.
    expect(times[8] - times[0]).toBeGreaterThanOrEqual(6 * interval - 1);
  }, 30_000);

  // Slack limits posts and edits apart (https://docs.slack.dev/apis/web-api/rate-limits): chat.postMessage about one
  // message per second per channel, chat.update Tier 3 (50+ a minute) per method and workspace.
  it("sends an edit without waiting for the channel's post pace, and still keeps the replies in order and paced", async () => {
    const { fake, makePort } = await setup();
    // One post at a time (no burst), so the second reply has to wait the pace and the edit can be seen not to.
    const port = makePort({ minIntervalMs: 4000, postBurst: 1 });
    const thread = await port.openThread(CHANNEL, card);
    await port.postEvent(thread, 'n1', note(1));
    await port.updateStatusCard(thread, { ...card, currentStep: 'Control plane' });
    await port.postEvent(thread, 'n2', note(2));
    await port.start();
    await port.drained();
    expect(replies(fake, thread)).toEqual(['ℹ️ event number 1', 'ℹ️ event number 2']);
    const posts = fake.okCalls('chat.postMessage').filter((c) => c.body.thread_ts === thread.ts);
    const edit = fake.okCalls('chat.update').find((c) => c.body.ts === thread.ts)!;
    expect(String(edit.body.text)).toContain('Control plane');
    // The card's edit came after the first reply (the order is the queue's) and before the pace let the next post go.
    expect(edit.at).toBeGreaterThanOrEqual(posts[0].at);
    expect(edit.at).toBeLessThan(posts[0].at + 4000);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(3999);
  }, 30_000);

  it("draws every channel's edits from one workspace budget: past its burst, the next edits are spread over the window", async () => {
    const { fake, makePort } = await setup();
    // 2 edits in any 2 s: half of them (one) at once, the other spread over the window.
    const port = makePort({ editsPerWindow: 2, editWindowMs: 2000 });
    const threads = [];
    for (const channel of ['C0ONE', 'C0TWO', 'C0THREE']) threads.push(await port.openThread(channel, card));
    for (const thread of threads) await port.updateStatusCard(thread, { ...card, currentStep: 'Add-ons' });
    await port.start();
    await port.drained();
    const edits = fake.okCalls('chat.update').map((c) => c.at).sort((a, b) => a - b);
    expect(edits).toHaveLength(3);
    // The first at once, then one every 2 s, whichever channel each was for (less the time each call took to reach the fake).
    expect(edits[1] - edits[0]).toBeGreaterThanOrEqual(1950);
    expect(edits[2] - edits[1]).toBeGreaterThanOrEqual(1950);
  }, 30_000);

  it('after a 429 with Retry-After, waits that long and delivers every reply exactly once, in order', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    for (let i = 1; i <= 3; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replies(fake, thread)).toEqual(['ℹ️ event number 1', 'ℹ️ event number 2', 'ℹ️ event number 3']);
    const limited = fake.calls.find((c) => c.status === 429)!;
    const retried = fake.calls.find((c) => c.method === 'chat.postMessage' && c.ok && c.at > limited.at)!;
    expect(retried.body.text).toBe('ℹ️ event number 1');
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(1000);
  });

  it('a run of 429s does not grow the backoff: the wait after a following 500 is the base, the next 500 doubles it', async () => {
    const { fake, makePort } = await setup();
    const port = makePort({ retry: { baseMs: 150, maxMs: 2000 } });
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 0 }, 6);
    fake.failNext('chat.postMessage', { status: 500 }, 2);
    await port.postEvent(thread, 'n1', note(1));
    await port.drained();
    expect(replies(fake, thread)).toEqual(['ℹ️ event number 1']);
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(6);
    // The wait after each 500, up to the next call to Slack (which first checks the post did not land after all).
    const waits = fake.calls.flatMap((c, i) => (c.status === 500 ? [fake.calls[i + 1].at - c.at] : []));
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(149);
    expect(waits[0]).toBeLessThan(300);
    expect(waits[1]).toBeGreaterThanOrEqual(299);
    expect(waits[1]).toBeLessThan(600);
  });

  it('rides out 500s and a Slack outage: callers return at once, posts follow in order when Slack is back', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 500 }, 2);
    await port.postEvent(thread, 'n1', note(1));
    fake.setOutage({ methods: ['chat.postMessage'], status: 503 });
    const started = Date.now();
    for (let i = 2; i <= 5; i++) await port.postEvent(thread, `n${i}`, note(i));
    expect(Date.now() - started).toBeLessThan(200);
    // The outbox keeps trying during the outage (Slack answers 503) and nothing gets through.
    await fake.waitFor((f) => f.calls.filter((c) => c.method === 'chat.postMessage' && c.status === 503).length >= 2, { timeoutMs: 10_000 });
    expect(replies(fake, thread)).toEqual([]);
    fake.clearOutage();
    await port.drained();
    expect(replies(fake, thread)).toEqual([1, 2, 3, 4, 5].map((i) => `ℹ️ event number ${i}`));
  });

  it('posts a key once, even when it is queued again after a restart of the process', async () => {
    const { fake, port, makePort } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.postEvent(thread, 'step:preflight:started', note(1));
    await port.postEvent(thread, 'step:preflight:started', note(1));
    await port.start();
    await port.drained();
    await port.close();
    const restarted = makePort();
    await restarted.start();
    await restarted.postEvent(thread, 'step:preflight:started', note(1));
    await restarted.postEvent(thread, 'step:preflight:finished', note(2));
    await restarted.drained();
    expect(replies(fake, thread)).toEqual(['ℹ️ event number 1', 'ℹ️ event number 2']);
  });

  it('keeps queued posts in Redis when no worker runs, and a later worker delivers them', async () => {
    const { fake, port, makePort } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    for (let i = 1; i <= 3; i++) await port.postEvent(thread, `n${i}`, note(i));
    await port.close();
    expect(replies(fake, thread)).toEqual([]);
    const worker = makePort();
    await worker.start();
    await worker.drained();
    expect(replies(fake, thread)).toEqual([1, 2, 3].map((i) => `ℹ️ event number ${i}`));
  });

  it('a worker stopped while retrying leaves the entry in flight; the next worker delivers it first, once', async () => {
    const { fake, port, makePort } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    for (let i = 1; i <= 3; i++) await port.postEvent(thread, `n${i}`, note(i));
    const limited = await fake.waitFor((f) => f.calls.find((c) => c.status === 429));
    await port.close();
    const next = makePort();
    await next.start();
    await next.drained();
    expect(replies(fake, thread)).toEqual([1, 2, 3].map((i) => `ℹ️ event number ${i}`));
    // The new worker honoured the Retry-After the old one received (it is kept in Redis, not in memory).
    const retried = fake.calls.find((c) => c.method === 'chat.postMessage' && c.ok && c.at > limited.at)!;
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(1000);
  });

  it('a worker killed while holding a channel blocks it only until its lease expires', async () => {
    const { fake, port, makePort, prefix } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.postEvent(thread, 'n1', note(1));
    // What a SIGKILLed worker leaves behind: its lease on the channel, never released.
    const redis = new Redis(redisUrl);
    const leasedAt = Date.now();
    await redis.set(`${prefix}:thread:lock:${CHANNEL}`, 'dead-worker', 'PX', 400);
    await redis.quit();
    const survivor = makePort({ lockTtlMs: 400 });
    await survivor.start();
    await survivor.drained();
    expect(replies(fake, thread)).toEqual(['ℹ️ event number 1']);
    // Not before the dead worker's lease ran out: the survivor's first reply in the thread came after it.
    const firstReply = fake.calls.find((c) => c.method === 'chat.postMessage' && c.body.thread_ts)!;
    expect(firstReply.at).toBeGreaterThanOrEqual(leasedAt + 400);
  });

  it('with two workers on the same queue, each reply is posted once and in order', async () => {
    const { fake, port, makePort } = await setup();
    const second = makePort();
    const thread = await port.openThread(CHANNEL, card);
    await Promise.all([port.start(), second.start()]);
    for (let i = 1; i <= 10; i++) await (i % 2 ? port : second).postEvent(thread, `n${i}`, note(i));
    await port.drained();
    expect(replies(fake, thread)).toEqual(Array.from({ length: 10 }, (_, i) => `ℹ️ event number ${i + 1}`));
    // The channel's bucket is in Redis: the two workers' posts together keep to it.
    const times = postTimes(fake);
    expect(postsPastBucket(times, DEFAULT_POST_BURST, MIN_INTERVAL_MS, 20), JSON.stringify(times)).toEqual([]);
    expect(times.at(-1)! - times[0]).toBeGreaterThanOrEqual((times.length - DEFAULT_POST_BURST) * MIN_INTERVAL_MS - 1);
  });

  it('never writes the bot token to its logs, even while retrying failures', async () => {
    const { fake, port, logLines } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { status: 500 }, 2);
    await port.postEvent(thread, 'n1', note(1));
    await port.drained();
    const logs = logLines.join('');
    expect(logs).toContain('retrying');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain('secret-outbox');
  });
});
