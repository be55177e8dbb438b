import { Writable } from 'node:stream';
import { ErrorCode, LogLevel, WebClient, type WebAPIRateLimitedError } from '@slack/web-api';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { createLogger } from '../../src/log/logger.js';
import type { StatusCardModel } from '../../src/ports/timeline-event.js';
import { createChannelPoster } from '../../src/slack/channel-poster.js';
import { createSlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

// Slack's rate limits (https://docs.slack.dev/apis/web-api/rate-limits) are on by default in the fake: posts about
// one per second per channel after a burst, chat.update Tier 3. This test keeps them on and shows the bot's
// outbox riding them out; end-to-end suites may pass rateLimits: 'off' to run threads at simulated speed.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function fakeSlack(rateLimits?: 'off'): Promise<FakeSlack> {
  const slack = await startFakeSlack({ signingSecret: 'rate-secret', ...(rateLimits ? { rateLimits } : {}) });
  cleanups.push(() => slack.close());
  return slack;
}

/** A client that surfaces every 429 instead of retrying it, to see the fake's answers one by one. */
const bareClient = (slack: FakeSlack) => new WebClient('xoxb-rate', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR });

async function outcomes(calls: Array<() => Promise<unknown>>): Promise<Array<'ok' | number>> {
  const results: Array<'ok' | number> = [];
  for (const call of calls) {
    try {
      await call();
      results.push('ok');
    } catch (error) {
      expect((error as WebAPIRateLimitedError).code).toBe(ErrorCode.RateLimitedError);
      results.push((error as WebAPIRateLimitedError).retryAfter);
    }
  }
  return results;
}

describe('fake Slack rate limits', () => {
  it('answers chat.postMessage with 429 and Retry-After once a channel has had its burst, per channel', async () => {
    const slack = await fakeSlack();
    const client = bareClient(slack);
    const results = await outcomes(Array.from({ length: 14 }, (_, i) => () => client.chat.postMessage({ channel: 'C0BUSY', text: `post ${i}` })));
    const limited = results.filter((r) => r !== 'ok') as number[];
    expect(limited.length).toBeGreaterThan(0);
    for (const retryAfter of limited) expect(retryAfter).toBeGreaterThanOrEqual(1);
    const refused = slack.calls.find((call) => call.status === 429)!;
    expect(refused).toMatchObject({ method: 'chat.postMessage', ok: false, error: 'ratelimited' });
    // Another channel has its own allowance.
    expect((await client.chat.postMessage({ channel: 'C0QUIET', text: 'hello' })).ok).toBe(true);
  });

  it('answers chat.update with 429 past its Tier 3 allowance, whatever the channel', async () => {
    const slack = await fakeSlack();
    const client = bareClient(slack);
    const posted = await client.chat.postMessage({ channel: 'C0CARD', text: 'card' });
    const results = await outcomes(Array.from({ length: 60 }, (_, i) => () => client.chat.update({ channel: 'C0CARD', ts: posted.ts!, text: `edit ${i}` })));
    expect(results.slice(0, 50).every((r) => r === 'ok')).toBe(true);
    expect(results.slice(50).some((r) => r !== 'ok')).toBe(true);
  });

  it("rateLimits: 'off' answers every call", async () => {
    const slack = await fakeSlack('off');
    const client = bareClient(slack);
    const results = await outcomes(Array.from({ length: 30 }, (_, i) => () => client.chat.postMessage({ channel: 'C0BUSY', text: `post ${i}` })));
    expect(results.every((r) => r === 'ok')).toBe(true);
  });

  it("the bot's outbox rides out real 429s: every reply arrives once, in order", async () => {
    const slack = await fakeSlack();
    const prefix = freshPrefix('ratelimit');
    const logger = createLogger({ level: 'error', destination: new Writable({ write: (_c, _e, done) => done() }) });
    // Paced far faster than Slack allows, so only Slack's 429s can hold it back.
    const queues = createQueueKit({ url: redisUrl }, prefix);
    const port = createSlackThreadPort({
      client: createSlackWebClient('xoxb-rate-outbox', { apiUrl: slack.apiUrl, logger }),
      queues,
      logger,
      minIntervalMs: 5,
      retry: { baseMs: 20, maxMs: 200 },
      pollIntervalMs: 50,
    });
    cleanups.push(async () => {
      await port.close();
      await queues.close();
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });
    const card: StatusCardModel = {
      jobId: 'job-rate', cluster: 'demo', from: '1.30', to: '1.31', state: 'running', currentStep: 'Preflight',
      startedBy: 'U0REQ', startedAt: Date.UTC(2024, 4, 1, 13), updatedAt: Date.UTC(2024, 4, 1, 13, 0, 5), dryRun: false,
    };
    const thread = await port.openThread('C0RATE', card);
    await port.start();
    const count = 16;
    for (let i = 0; i < count; i++) {
      await port.postEvent(thread, `note-${i}`, { kind: 'note', at: card.startedAt + i, level: 'info', text: `event number ${i}` });
    }
    await port.drained();
    const texts = slack.message(thread.channel, thread.ts)!.replies.map((reply) => reply.text);
    expect(slack.calls.some((call) => call.method === 'chat.postMessage' && call.status === 429)).toBe(true);
    expect(texts.map((text) => /event number (\d+)/.exec(text)?.[1])).toEqual(Array.from({ length: count }, (_, i) => String(i)));
  });

  it('the channel poster (rollouts, digest) waits out a 429 and posts, once', async () => {
    const slack = await fakeSlack();
    // The bot's client (src/slack/slack-web-client.ts): no retries of its own and 429s rejected at once (the outbox
    // paces itself), so the poster must handle 429s.
    const logger = createLogger({ level: 'error', destination: new Writable({ write: (_c, _e, done) => done() }) });
    const poster = createChannelPoster(createSlackWebClient('xoxb-rate-poster', { apiUrl: slack.apiUrl, logger }));
    for (let i = 0; i < 13; i++) await poster.post('C0FLEET', { text: `wave message ${i}` });
    expect(slack.calls.some((call) => call.method === 'chat.postMessage' && call.status === 429)).toBe(true);
    expect(slack.messages('C0FLEET').map((m) => m.text)).toEqual(Array.from({ length: 13 }, (_, i) => `wave message ${i}`));
  });
});
