import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisAuditLog } from '../../src/audit/redis-audit-log.js';
import { runCli } from '../../src/cli/run-cli.js';
import { systemClock, type Clock } from '../../src/ports/clock.js';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import type { JobSummary } from '../../src/ports/upgrade-control.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * The durable audit trail: every approval, Force (with its reason), pause and refusal lands in Redis per cluster,
 * reads back through `/eks-upgrade audit` (user text escaped) and the CLI (JSON), and is kept for its retention on
 * the bot's clock. demo's approvers: U0APP, U0REQ, S0ONCALL (U0ONCALL); requester U0REQ; two-person rule on.
 */
describe('audit trail through Slack', () => {
  let harness: SlackHarness;
  let job: JobSummary;
  beforeEach(async () => {
    harness = await startSlackHarness();
    const parent = await harness.slack.client.chat.postMessage({ channel: 'C0DEMO', text: 'Upgrade of demo 1.30 → 1.31' });
    job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', thread: { channel: 'C0DEMO', ts: parent.ts! } });
    harness.control.openGate(job.jobId, 'h1-control-plane', 1, 'Upgrade the control plane of demo to 1.31?');
  });
  afterEach(async () => harness.close());

  it('records refusals, Force with its reason and pause, and /eks-upgrade audit shows them with user text escaped', async () => {
    const card = await harness.slack.client.chat.postMessage({
      channel: 'C0DEMO',
      thread_ts: job.thread.ts,
      ...renderGateCard({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, title: 'Upgrade?', details: [], actions: ['continue', 'force', 'abort'] }),
    });
    await harness.fake.clickButton({ userId: 'U0PLAT', channelId: 'C0DEMO', messageTs: card.ts!, actionId: 'gate:continue' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length > 0);
    await harness.fake.clickButton({ userId: 'U0ONCALL', channelId: 'C0DEMO', messageTs: card.ts!, actionId: 'gate:force' });
    await harness.fake.waitFor((fake) => fake.modals().length > 0);
    const reason = 'ping <!channel> and <@U0BOSS>: orders can lose a replica';
    await harness.fake.submitView({ userId: 'U0ONCALL', callbackId: 'force-reason', values: { reason } });
    await harness.fake.waitFor(() => harness.control.mutations().some((call) => call.method === 'answerGate'));
    await harness.fake.sendSlashCommand({ text: 'pause demo', userId: 'U0APP', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length === 1);
    await harness.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0OUT', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0OUT').length === 1);

    const entries = await harness.audit.read('demo');
    expect(entries.map((entry) => [entry.user, entry.action, entry.outcome, entry.via])).toEqual([
      ['U0OUT', 'start', 'refused', 'command'],
      ['U0APP', 'pause', 'accepted', 'command'],
      ['U0ONCALL', 'gate:force', 'accepted', 'modal'],
      ['U0PLAT', 'gate:continue', 'refused', 'button'],
    ]);
    expect(entries[2]).toMatchObject({ reason, job: job.jobId, gate: 'h1-control-plane' });
    expect(entries[3].detail).toMatch(/Only the approvers of demo may answer this gate/);

    await harness.fake.sendSlashCommand({ text: 'audit demo', userId: 'U0PLAT', channelId: 'C0DEMO' });
    const [, listing] = await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length === 2 && fake.ephemerals('U0PLAT'));
    // The records are in the blocks; the notification text only says what this is (≤ 4,000 characters, issue 26).
    const shown = [listing.text, ...(listing.blocks ?? []).map((block) => (block as { text?: { text?: string } }).text?.text ?? '')].join('\n');
    expect(listing.text).toContain('Audit trail of demo: the last 4 records');
    expect(shown).toContain('*Audit trail of demo*, newest first (last 4):');
    expect(shown).toContain('<@U0ONCALL> gate:force (modal): accepted');
    expect(shown).toContain('reason: “ping &lt;!channel&gt; and &lt;@U0BOSS&gt;: orders can lose a replica”');
    expect(shown).not.toContain('<!channel>');
  });

  it('audit of a cluster this channel may not drive is refused, and the refusal itself is recorded', async () => {
    await harness.fake.sendSlashCommand({ text: 'audit prod', userId: 'U0APP', channelId: 'C0DEMO' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length === 1 && fake.ephemerals('U0APP'));
    expect(reply.text).toMatch(/prod cannot be driven from this channel/);
    expect(await harness.audit.read('prod')).toEqual([expect.objectContaining({ user: 'U0APP', action: 'audit', outcome: 'refused' })]);
  });
});

describe('audit trail storage and CLI', () => {
  let prefix: string;
  let redis: Redis;
  beforeEach(() => {
    prefix = freshPrefix('audit-cli');
    redis = new Redis(redisUrl);
  });
  afterEach(async () => {
    await deleteKeys(`${prefix}:*`);
    await redis.quit();
  });

  it('keeps records for the retention on the bot clock, and the CLI prints them as JSON', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock: Clock = { now: () => now, sleep: async () => undefined };
    const log = createRedisAuditLog(redis, { prefix, clock, retentionDays: 7 });
    await log.record({ at: now, cluster: 'demo', user: 'U0APP', action: 'gate:continue', outcome: 'accepted', via: 'button' });
    now += 6 * 86_400_000;
    await log.record({ at: now, cluster: 'demo', user: 'U0APP', action: 'pause', outcome: 'accepted', via: 'command' });
    expect((await log.read('demo')).map((entry) => entry.action)).toEqual(['pause', 'gate:continue']);
    now += 2 * 86_400_000; // the first record is now 8 days old: past a 7-day retention
    expect((await log.read('demo')).map((entry) => entry.action)).toEqual(['pause']);

    const out: string[] = [];
    const code = await runCli(['audit', 'demo', '--output', 'json'], {
      env: {},
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      sources: () => { throw new Error('audit reads no AWS'); },
      auditLog: () => ({ audit: log, close: async () => undefined }),
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('')).entries).toEqual([expect.objectContaining({ cluster: 'demo', action: 'pause', user: 'U0APP' })]);
  });

  it('the CLI says what to set when Redis does not answer', async () => {
    const down = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    down.on('error', () => undefined);
    const err: string[] = [];
    const code = await runCli(['audit', 'demo'], {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      stdout: () => undefined,
      stderr: (text) => err.push(text),
      sources: () => { throw new Error('audit reads no AWS'); },
      auditLog: () => ({ audit: createRedisAuditLog(down, { prefix, clock: systemClock }), close: async () => down.disconnect() }),
    });
    expect(code).toBe(1);
    expect(err.join('')).toBe("eks-upgrade: could not read the audit trail: Redis at redis://127.0.0.1:1 is not answering. Start Redis, or set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.\n");
  });
});
