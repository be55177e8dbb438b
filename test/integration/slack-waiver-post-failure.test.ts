import { WebClient } from '@slack/web-api';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createWaiverStore } from '../../src/waivers/store/redis-waiver-store.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';
import { BOT_TOKEN, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

// A waiver request is only worth keeping once its card (with Approve / Reject) is in the channel: when Slack
// refuses that post, the request is withdrawn and the requester is told exactly that — not "nothing was waived"
// over a request that in fact waits in Redis for 90 days.
let harness: SlackHarness | undefined;
let redis: Redis | undefined;
let prefix = '';
afterEach(async () => {
  await harness?.close();
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
  harness = undefined;
  redis = undefined;
});

describe('a waiver request whose card Slack refuses', () => {
  it('is withdrawn, and the requester is told it was withdrawn and nothing is stored', async () => {
    prefix = freshPrefix('waiver-post');
    redis = new Redis(redisUrl);
    let seq = 0;
    const store = createWaiverStore(redis, prefix, () => `w${++seq}`);
    harness = await startSlackHarness({ waivers: store });
    const { fake } = harness;
    // A plan card's Waive… button, as render-plan-blocks posts it.
    const client = new WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
    const value = JSON.stringify({ c: 'demo', k: 'K8S004', r: 'deployment/store/payments' });
    const plan = await client.chat.postMessage({
      channel: 'C0DEMO', text: 'plan',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'K8S004 payments' }, accessory: { type: 'button', action_id: 'waiver:request', text: { type: 'plain_text', text: 'Waive…' }, value } }],
    });
    await fake.clickButton({ userId: 'U0REQ', channelId: 'C0DEMO', messageTs: plan.ts!, actionId: 'waiver:request', value });
    await fake.waitFor((f) => f.modals().find((m) => m.user === 'U0REQ' && m.state === 'open'), { timeoutMs: 10_000 });
    fake.failNext('chat.postMessage', { error: 'invalid_blocks' });
    const expires = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await fake.submitView({ userId: 'U0REQ', callbackId: 'waiver-request', values: { reason: 'payments is single-writer by design', expires } });
    const told = await fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => /waiver request/.test(e.text)), { timeoutMs: 10_000 });
    expect(told.text).toMatch(/failed \(invalid_blocks\), so the request was withdrawn: nothing was waived and nothing is stored/);
    expect(await store.list('demo')).toEqual([]);
    expect(fake.messages('C0DEMO').some((m) => JSON.stringify(m.blocks ?? []).includes('waiver:approve'))).toBe(false);
  });
});
