import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { startFakeSlack } from '@eks-upgrade-bot/sim';
import { createSlackThreadPort, type SlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import type { GateModel, StatusCardModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

const TOKEN = 'xoxb-3333-4444-cards-token';
const CHANNEL = 'C0OPS';
const t0 = Date.UTC(2024, 4, 1, 14, 0, 0);

const card: StatusCardModel = {
  jobId: 'job-1',
  cluster: 'demo',
  from: '1.30',
  to: '1.31',
  state: 'running',
  currentStep: 'Preflight',
  startedBy: 'U0REQ',
  startedAt: t0,
  updatedAt: t0,
  dryRun: false,
};

const gate: GateModel = {
  jobId: 'job-1',
  gateId: 'h1-control-plane',
  revision: 1,
  title: 'Upgrade the control plane of demo to 1.31?',
  details: ['Preflight passed with 0 errors.'],
  actions: ['continue', 'abort'],
};
const opened: TimelineEvent = { kind: 'gate-opened', at: t0 + 1000, gate };
const answered: TimelineEvent = { kind: 'gate-answered', at: Date.UTC(2024, 4, 1, 14, 3, 7), gate, action: 'continue', by: 'U0APP' };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup() {
  const fake = await startFakeSlack({ signingSecret: 'test-signing-secret' });
  const prefix = freshPrefix('thread');
  const logger = createLogger({ level: 'silent' });
  const client = createSlackWebClient(TOKEN, { apiUrl: fake.apiUrl, logger });
  const queues = createQueueKit({ url: redisUrl }, prefix);
  const port: SlackThreadPort = createSlackThreadPort({
    client,
    queues,
    logger,
    minIntervalMs: 30,
    retry: { baseMs: 20, maxMs: 200 },
    pollIntervalMs: 50,
  });
  cleanups.push(async () => {
    await port.close();
    await queues.close();
    await fake.close();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return { fake, port, client };
}

const hasActions = (blocks: unknown[] | undefined) => (blocks ?? []).some((b) => (b as { type: string }).type === 'actions');

describe('Slack thread outbox: cards', () => {
  it('turns the gate card into the record of who approved it (chat.update on the gate post), buttons gone', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    await port.postEvent(thread, 'gate:h1-control-plane:1', opened);
    await port.drained();
    const gatePost = fake.message(CHANNEL, thread.ts)!.replies[0];
    expect(hasActions(gatePost.blocks)).toBe(true);

    await port.postEvent(thread, 'gate:h1-control-plane:1', answered);
    await port.postEvent(thread, 'gate:h1-control-plane:1', answered); // a double click changes nothing twice
    await port.drained();
    const updates = fake.okCalls('chat.update').filter((c) => c.body.ts === gatePost.ts);
    expect(updates).toHaveLength(1);
    const after = fake.message(CHANNEL, thread.ts)!.replies;
    expect(after).toHaveLength(1);
    expect(hasActions(after[0].blocks)).toBe(false);
    expect(JSON.stringify(after[0].blocks)).toContain('✅ Approved by <@U0APP> at 14:03:07 UTC');
  });

  it('finds the gate card by the gate identity when the answer comes under another key', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.postEvent(thread, 'gate-open-1', opened);
    await port.postEvent(thread, 'gate-answer-1', answered);
    await port.start();
    await port.drained();
    const replies = fake.message(CHANNEL, thread.ts)!.replies;
    expect(replies).toHaveLength(1);
    expect(replies[0].versions).toHaveLength(2);
    expect(hasActions(replies[0].blocks)).toBe(false);
  });

  it('posts the answer as a new reply when the gate card was deleted', async () => {
    const { fake, port, client } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    await port.postEvent(thread, 'gate:1', opened);
    await port.drained();
    await client.chat.delete({ channel: CHANNEL, ts: fake.message(CHANNEL, thread.ts)!.replies[0].ts });
    await port.postEvent(thread, 'gate:1', answered);
    await port.drained();
    const visible = fake.message(CHANNEL, thread.ts)!.replies.filter((r) => !r.deleted);
    expect(visible.map((r) => r.text)).toEqual([expect.stringContaining('Approved by <@U0APP>')]);
  });

  it('coalesces status card updates: only the newest state is sent, with chat.update on the parent', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    for (let i = 1; i <= 20; i++) {
      await port.updateStatusCard(thread, { ...card, progress: `NodeClaims replaced ${i}/20`, updatedAt: t0 + i * 1000 });
    }
    await port.start();
    await port.drained();
    const updates = fake.okCalls('chat.update').filter((c) => c.body.ts === thread.ts);
    expect(updates).toHaveLength(1);
    expect(fake.message(CHANNEL, thread.ts)!.text).toContain('NodeClaims replaced 20/20');

    // While the channel is busy, a burst of updates still ends in a bounded number of calls and the newest state.
    for (let i = 1; i <= 10; i++) await port.postEvent(thread, `n${i}`, { kind: 'note', at: t0, level: 'info', text: `n${i}` });
    for (let i = 21; i <= 60; i++) await port.updateStatusCard(thread, { ...card, progress: `step ${i}`, updatedAt: t0 + i * 1000 });
    await port.drained();
    expect(fake.okCalls('chat.update').filter((c) => c.body.ts === thread.ts).length).toBeLessThanOrEqual(3);
    expect(fake.message(CHANNEL, thread.ts)!.text).toContain('step 60');
  });

  it('collapses queued progress of one step into the newest, even with card updates in between', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.postEvent(thread, 'started', { kind: 'step-started', at: t0, step: 'karpenter', title: 'Karpenter NodePool default' });
    for (let i = 1; i <= 1000; i++) {
      await port.postEvent(thread, `progress:${i}`, { kind: 'progress', at: t0 + i, step: 'karpenter', text: `NodeClaims replaced ${i}/1000` });
      if (i % 10 === 0) await port.updateStatusCard(thread, { ...card, progress: `NodeClaims replaced ${i}/1000` });
    }
    await port.postEvent(thread, 'other-step', { kind: 'progress', at: t0, step: 'fargate', text: 'assets restarted 1/1' });
    await port.start();
    await port.drained();
    const replies = fake.message(CHANNEL, thread.ts)!.replies.map((r) => r.text);
    expect(replies).toEqual(['Started: Karpenter NodePool default', 'karpenter: NodeClaims replaced 1000/1000', 'fargate: assets restarted 1/1']);
  });

  it('uploads the Markdown timeline into the thread once per key', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    const markdown = '# EKS upgrade timeline · demo 1.30 → 1.31\n\n- Job: `job-1`\n';
    await port.uploadMarkdown(thread, 'export:final', 'timeline-demo-job-1.md', 'Upgrade timeline', markdown);
    await port.uploadMarkdown(thread, 'export:final', 'timeline-demo-job-1.md', 'Upgrade timeline', markdown);
    await port.drained();
    const files = fake.files();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ name: 'timeline-demo-job-1.md', title: 'Upgrade timeline', threadTs: thread.ts, channel: CHANNEL });
    expect(files[0].text).toBe(markdown);
  });

  it('sends a message Slack refuses as blocks again as plain text instead of losing it', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    await port.start();
    fake.failNext('chat.postMessage', { error: 'invalid_blocks' });
    await port.postEvent(thread, 'n1', { kind: 'note', at: t0, level: 'info', text: 'kept' });
    await port.drained();
    const replies = fake.message(CHANNEL, thread.ts)!.replies;
    expect(replies).toHaveLength(1);
    expect(replies[0].text).toContain('ℹ️ kept');
    expect(replies[0].text).toContain('plain text');
  });

  it('openThread posts the parent card at once, and says what to do when Slack refuses it', async () => {
    const { fake, port } = await setup();
    const thread = await port.openThread(CHANNEL, card);
    expect(fake.message(CHANNEL, thread.ts)!.text).toContain('EKS upgrade · demo 1.30 → 1.31');

    fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    await expect(port.openThread(CHANNEL, card)).rejects.toThrow(
      /opening the upgrade thread in channel C0OPS failed: .*invite the bot to the channel/,
    );
    fake.failNext('chat.postMessage', { status: 500 }, 1);
    await expect(port.openThread(CHANNEL, card)).resolves.toMatchObject({ channel: CHANNEL });
  });
});
