import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { EnvConfig } from '../../src/config/env-config.js';
import { createLogger } from '../../src/log/logger.js';
import { type FakeMessage, type FakeSlack, type RecordedCall, type SimServer, startFakeSlack, startSimulator } from '@eks-upgrade-bot/sim';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { DEFAULT_POST_BURST } from '../../src/slack/thread/slack-thread-port.js';
import { postsPastBucket } from '../support/post-bucket.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';

/**
 * Issue 2 end to end, as a person in Slack sees it: the whole bot (startBot: Bolt app, BullMQ worker, thread
 * outbox) on a real Redis, the simulated demo cluster (10-minute control-plane update at speed 600 = 1 s), and the
 * fake Slack typing commands and clicking the gate card the bot posted. demo's approvers: U0APP and U0REQ, with the two-person rule; U0REQ requests.
 *
 * The one end-to-end test on Slack's real pace: its bot keeps startBot's default thread pacing (a burst of three posts, then one a second
 * per channel), and the test holds the thread's writes to it. Every other stack runs the outbox at tens of ms.
 */
const SECRET = 'e2e-signing-secret-0123456789';
let sim: SimServer;
let fake: FakeSlack;
let bot: RunningBot;

beforeEach(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 600 });
  fake = await startFakeSlack({ signingSecret: SECRET });
  const env: EnvConfig = {
    SLACK_BOT_TOKEN: 'xoxb-e2e-token',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    REDIS_URL: redisUrl,
    PORT: 0,
    CLUSTERS_FILE: 'unused.yaml',
    LOG_LEVEL: 'silent',
    ROLE: 'all',
    QUEUE_PREFIX: freshPrefix('slack-e2e'),
    // The bot runs on real time, as in production; only the simulator's world runs fast.
    AWS_POLL_SECONDS: 0.2,
    SHUTDOWN_TIMEOUT_SECONDS: 25,
    AUDIT_RETENTION_DAYS: 400,
  };
  const config = parseClustersConfig({
    clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ'], twoPersonRule: true }],
  });
  bot = await startBot({
    env,
    config,
    logger: createLogger({ level: process.env.E2E_LOG ?? 'silent' }),
    aws: { endpoint: sim.url, credentials: { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' } },
  });
  fake.setBotEventsUrl(`http://127.0.0.1:${bot.port}/slack/events`);
});
afterEach(async () => {
  await bot?.stop();
  await fake?.close();
  await sim?.close();
});

/**
 * The thread's writes to one channel, as the fake Slack recorded them: replies in a thread, edits (the status card,
 * step messages, gate cards) and file shares — what the outbox sends. (A file share is three calls; its last one,
 * files.completeUploadExternal, is what posts it.)
 */
function threadWrites(f: FakeSlack, channel: string): RecordedCall[] {
  return f.calls.filter(
    (call) =>
      (call.method === 'chat.postMessage' && call.body.channel === channel && call.body.thread_ts !== undefined) ||
      (call.method === 'chat.update' && call.body.channel === channel) ||
      (call.method === 'files.completeUploadExternal' && call.body.channel_id === channel),
  );
}

const gateCard = (f: FakeSlack): FakeMessage | undefined =>
  f.messages('C0DEMO').flatMap((m) => m.replies).find((reply) => JSON.stringify(reply.blocks ?? []).includes('"gate:continue"'));

describe('a gated control-plane upgrade driven from Slack', () => {
  it('start → gate card → refused click → Continue → demo at 1.31, one UpdateClusterVersion', async () => {
    const started = await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(started.status).toBe(200);
    expect(started.ackMs).toBeLessThan(3_000);
    const confirmation = await fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 10_000 });
    expect(confirmation.text).toMatch(/Started upgrading demo from 1\.30 to 1\.31/);

    const card = await fake.waitFor(gateCard, { timeoutMs: 20_000 });
    // The requester may not approve their own upgrade (two-person rule) and nothing moves.
    await fake.clickButton({ userId: 'U0REQ', channelId: 'C0DEMO', messageTs: card.ts, actionId: 'gate:continue' });
    const refusal = await fake.waitFor((f) => f.ephemerals('U0REQ')[1], { timeoutMs: 10_000 });
    expect(refusal.text).toMatch(/two-person rule/);

    await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: card.ts, actionId: 'gate:continue' });
    // The simulator changes silently (fake.waitFor wakes on Slack activity only), so its state is polled.
    await until(() => sim.world.cluster('demo')?.version === '1.31', 'demo at 1.31');
    expect(sim.world.cluster('demo')?.version).toBe('1.31');
    expect(sim.world.calls.filter((call) => call.operation === 'UpdateClusterVersion')).toHaveLength(1);

    // The card now says who approved it, without buttons; a late double click is told so.
    const answered = await fake.waitFor((f) => {
      const current = f.message('C0DEMO', card.ts);
      return current && !JSON.stringify(current.blocks ?? []).includes('"gate:continue"') && current;
    }, { timeoutMs: 10_000 });
    expect(JSON.stringify(answered.blocks)).toMatch(/Approved by <@U0APP>/);
    await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: card.ts, actionId: 'gate:continue', version: 0 });
    const late = await fake.waitFor((f) => f.ephemerals('U0APP')[0], { timeoutMs: 10_000 });
    expect(late.text).toMatch(/^Already approved by <@U0APP>/);
    expect(sim.world.calls.filter((call) => call.operation === 'UpdateClusterVersion')).toHaveLength(1);

    await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    const status = await fake.waitFor((f) => f.ephemerals('U0REQ')[2], { timeoutMs: 10_000 });
    expect(status.text).toMatch(/control plane 1\.31/);

    // What an operator would check with the real aws CLI: the cluster at 1.31, one version update issued.
    // (Asynchronously: the simulator answering it runs in this very process.)
    const aws = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)('aws', ['--endpoint-url', sim.url, '--region', 'us-west-2', '--output', 'json', 'eks', ...args], {
        env: { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_PAGER: '' },
        timeout: 30_000,
      });
      return JSON.parse(stdout);
    };
    expect((await aws('describe-cluster', '--name', 'demo')).cluster.version).toBe('1.31');
    const updateIds: string[] = (await aws('list-updates', '--name', 'demo')).updateIds;
    const updates = await Promise.all(updateIds.map(async (id) => (await aws('describe-update', '--name', 'demo', '--update-id', id)).update));
    const versionUpdates = updates.filter((update) => update.type === 'VersionUpdate');
    expect(versionUpdates.map((update) => update.status)).toEqual(['Successful']);

    // The plan's second gate, before the node group demo-ng rolls: the approver answers it too.
    const nodegroupCard = await fake.waitFor(
      (f) => f.messages('C0DEMO').flatMap((m) => m.replies).find((reply) => reply.ts !== card.ts && JSON.stringify(reply.blocks ?? []).includes('"gate:continue"')),
      { timeoutMs: 30_000 },
    );
    expect(JSON.stringify(nodegroupCard.blocks)).toMatch(/Roll node group demo-ng \(\d+ nodes?\) to 1\.31\?/);
    await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: nodegroupCard.ts, actionId: 'gate:continue' });

    // The job's record: the timeline file lands in the thread at the end (after the replies queued before it, which
    // the outbox paces at about one a second), and again on demand from the card.
    const parent = await fake.waitFor((f) => f.messages('C0DEMO').find((m) => m.replies.some((r) => r.ts === card.ts)), { timeoutMs: 10_000 });
    await fake.waitFor((f) => f.files().filter((file) => file.threadTs === parent.ts).length === 1, { timeoutMs: 60_000 });
    await fake.waitFor((f) => JSON.stringify(f.message('C0DEMO', parent.ts)?.blocks ?? []).includes('Succeeded'), { timeoutMs: 20_000 });
    await fake.clickButton({ userId: 'U0REQ', channelId: 'C0DEMO', messageTs: parent.ts, actionId: 'job:timeline' });
    const files = await fake.waitFor((f) => {
      const inThread = f.files().filter((file) => file.threadTs === parent.ts && file.text.length > 0);
      return inThread.length === 2 && inThread;
    }, { timeoutMs: 60_000 });
    expect(files[1].text).toMatch(/Approved|approved/);
    expect(files[1].text).toContain('U0APP');

    // The thread reads at a glance: one message per step, posted when it starts and edited in place until it ends
    // with ✅ and its duration; findings, the gate card and the summary are replies of their own.
    const replies = fake.message('C0DEMO', parent.ts)!.replies;
    const posts = replies.filter((reply) => reply.source === 'chat.postMessage');
    expect(posts.length, posts.map((p) => p.text.slice(0, 60)).join('\n')).toBeLessThanOrEqual(15);
    const stepMessages = posts.filter((reply) => String((reply.metadata as { event_payload?: { post_id?: string } })?.event_payload?.post_id).startsWith('upsert:'));
    expect(stepMessages.map((m) => m.text.replace(/ finished in .*$/s, ''))).toEqual(
      ['preflight for 1.31', 'approval: control plane of demo to 1.31', 'control plane to 1.31', 'add-ons for 1.31', 'managed node groups to 1.31', 'verify 1.31'].map((t) => `✅ ${t}`),
    );
    for (const message of stepMessages) {
      expect(message.text).toMatch(/^✅ .+ finished in (<1s|\d+s|\d+m( \d+s)?)( — |$)/s);
      // Every version of it is the same step (▶️ started, ⏳ progress, ✅); a started one still queued when the step
      // ended was replaced where it stood, so a quick step may show only its end.
      expect(message.versions.every((v) => /^(▶️|✅) /u.test(v.text ?? '')), message.versions.map((v) => v.text).join('\n')).toBe(true);
    }
    // The export keeps every event the thread folded into those messages.
    expect(files[0].text).toMatch(/Started \*\*control plane to 1\.31\*\*/);
    expect(files[0].text).toMatch(/UpdateClusterVersion demo → 1\.31 issued/);

    // Slack's pace, which this bot keeps by default (https://docs.slack.dev/apis/web-api/rate-limits): chat.postMessage
    // "one message per second per channel" with "short bursts >1 allowed", so the thread's posts (replies and file
    // shares) keep to a bucket of three refilling one a second (10 ms spared for timer granularity); chat.update is
    // Tier 3, 50+ a minute per workspace, and the bot's edits stay within 50 in any minute. Slack never had to refuse
    // a write (the fake's limits are on here).
    const writes = threadWrites(fake, 'C0DEMO');
    expect(writes.length).toBeGreaterThanOrEqual(10);
    const threadPosts = writes.filter((call) => call.method !== 'chat.update');
    const postTimes = threadPosts.map((call) => call.at);
    expect(postsPastBucket(postTimes, DEFAULT_POST_BURST, 1000), JSON.stringify(postTimes.map((at) => at - postTimes[0]))).toEqual([]);
    const edits = writes.filter((call) => call.method === 'chat.update').map((call) => call.at);
    expect(Math.max(...edits.map((at) => edits.filter((other) => other >= at && other < at + 60_000).length))).toBeLessThanOrEqual(50);
    expect(fake.calls.filter((call) => call.status === 429)).toEqual([]);
  });
});
