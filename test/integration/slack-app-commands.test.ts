import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import { buildSlashCommandBody, signSlackRequest } from '@eks-upgrade-bot/sim';
import { BOT_TOKEN, SIGNING_SECRET, ephemeralTexts, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * The real Bolt app over HTTP, driven by the fake Slack with signed requests. What a user notices: every command
 * is acked well inside 3 s, bad input gets an ephemeral usage message and nothing else happens, forged or stale
 * requests are refused, and the operator's /healthz and /metrics answer.
 */
let harness: SlackHarness;
let describeDelayMs = 0;
const eks = {
  async describeCluster(name: string) {
    // A slow AWS call must not delay the ack: the work happens after it.
    await new Promise((resolve) => setTimeout(resolve, describeDelayMs));
    return { name, version: '1.30', platformVersion: 'eks.5', status: 'ACTIVE' };
  },
  async describeClusterVersions() {
    return ['1.30', '1.31', '1.32', '1.33'].map((clusterVersion) => ({ clusterVersion }));
  },
} as unknown as EksPort;

beforeEach(async () => {
  describeDelayMs = 0;
  harness = await startSlackHarness({ eks: () => eks });
});
afterEach(async () => harness.close());

describe('slash commands through Bolt', () => {
  it('help answers ephemerally with every subcommand, acked at once', async () => {
    const result = await harness.fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(result.status).toBe(200);
    expect(result.ackMs).toBeLessThan(1000);
    // The answer came in the ack's own body: it is shown as the command returns, with no response_url call.
    const [help] = harness.fake.ephemerals('U0REQ');
    for (const name of ['help', 'status', 'plan', 'start', 'jobs', 'pause', 'resume', 'abort']) expect(JSON.stringify(help.blocks)).toContain(`/eks-upgrade ${name}`);
    expect(harness.fake.messages()).toEqual([]); // nothing visible to the channel
    expect(harness.fake.calls.filter((call) => call.method === 'response_url')).toEqual([]);
  });

  it('a malformed command is answered in the ack too, and counted as rejected', async () => {
    await harness.fake.sendSlashCommand({ text: 'start demo --to latest', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(harness.fake.ephemerals('U0REQ').map((e) => e.text)).toEqual([expect.stringMatching(/`latest` is not a Kubernetes minor version/)]);
    expect(harness.fake.calls.filter((call) => call.method === 'response_url')).toEqual([]);
    const metrics = async () => (await fetch(`http://127.0.0.1:${harness.slack.port}/metrics`)).text();
    await expect.poll(metrics, { timeout: 30_000 }).toContain('eks_upgrade_commands_total{subcommand="start",outcome="rejected"} 1');
    expect(harness.fake.ephemerals('U0REQ')).toHaveLength(1);
  });

  it.each([
    ['start demo --to latest', /`latest` is not a Kubernetes minor version[\s\S]*Usage: `\/eks-upgrade start &lt;cluster&gt; --to &lt;minor&gt; \[--dry-run\]`/],
    ['start demo --to 1.3x', /`1.3x` is not a Kubernetes minor version/],
    ['upgrade demo', /`upgrade` is not a subcommand/],
    ['start demo', /needs `--to &lt;minor&gt;`/],
    ['start demo --to 1.31 --yes', /Unknown option `--yes`/],
    ['start nope --to 1.31', /There is no cluster `nope`.*you may use `demo`/],
    ['start prod --to 1.31', /prod cannot be driven from this channel/],
  ])('%s → ephemeral problem + usage, and nothing happens', async (text, expected) => {
    const result = await harness.fake.sendSlashCommand({ text, userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(result.status).toBe(200);
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0 && fake.ephemerals('U0REQ'));
    expect(reply.text).toMatch(expected);
    expect(harness.control.mutations()).toEqual([]);
    expect(harness.fake.okCalls('chat.postMessage')).toEqual([]);
  });

  it('a non-requester cannot start, and is told who can', async () => {
    await harness.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0APP', channelId: 'C0DEMO' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'));
    expect(reply.text).toMatch(/not among the requesters of demo.*<@U0REQ>/);
    expect(harness.control.mutations()).toEqual([]);
  });

  it('start hands one job to the engine and tells the requester where its thread is', async () => {
    await harness.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0 && fake.ephemerals('U0REQ'));
    expect(reply.text).toMatch(/Started upgrading demo from 1.30 to 1.31 \(job `job-1`\)\. Follow it in its <https:\/\/slack.com\/archives\/C0DEMO\/p\d+\|thread>/);
    expect(harness.control.mutations()).toHaveLength(1);
    await harness.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    const second = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ')[1]);
    expect(second.text).toMatch(/already running \(1.30 → 1.31/);
  });

  it('acks 30 concurrent commands well inside 3 s even when each one\'s work takes 2 s', async () => {
    describeDelayMs = 2_000;
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => harness.fake.sendSlashCommand({ text: i % 2 ? 'status demo' : 'start demo --to 1.31 --dry-run', userId: 'U0REQ', channelId: 'C0DEMO' })),
    );
    const acks = results.map((result) => result.ackMs);
    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(Math.max(...acks)).toBeLessThan(1_000);
    expect(performance.now() - started).toBeLessThan(1_500); // all acked before any AWS call returned
    await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length === 30, { timeoutMs: 10_000 });
  });

  it('refuses a forged signature and a stale one with 401, and does nothing', async () => {
    const body = buildSlashCommandBody({
      teamId: 'T0FAKE', teamDomain: 'fake', apiAppId: 'A0FAKEAPP', channelId: 'C0DEMO', channelName: 'demo',
      userId: 'U0REQ', userName: 'req', command: '/eks-upgrade', text: 'start demo --to 1.31',
      responseUrl: `${harness.fake.url}/response/forged`, triggerId: '1.2.3',
    });
    const forged = await harness.fake.sendRaw({ body, headers: { ...signSlackRequest('not-the-secret', body) } });
    const staleHeaders = signSlackRequest(SIGNING_SECRET, body, Math.floor(Date.now() / 1000) - 6 * 60);
    const stale = await harness.fake.sendRaw({ body, headers: { ...staleHeaders } });
    const unsigned = await harness.fake.sendRaw({ body, headers: {} });
    expect([forged.status, stale.status, unsigned.status]).toEqual([401, 401, 401]);
    // A genuine command sent after them is answered: by then the refused ones have had every chance to act.
    await harness.fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0);
    expect(harness.control.calls).toEqual([]);
    expect(harness.fake.ephemerals().map((ephemeral) => ephemeral.text)).toEqual([expect.stringContaining('/eks-upgrade help')]);
  });

  it('serves /healthz and /metrics, and never logs the bot token', async () => {
    await harness.fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    await harness.fake.sendSlashCommand({ text: 'start demo --to latest', userId: 'U0REQ', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length === 2);
    const base = `http://127.0.0.1:${harness.slack.port}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    // Both were answered with their ack; they are counted once routed, just after.
    await expect.poll(async () => (await fetch(`${base}/metrics`)).text(), { timeout: 30_000 }).toContain('eks_upgrade_commands_total{subcommand="start",outcome="rejected"} 1');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('eks_upgrade_commands_total{subcommand="help",outcome="ok"} 1');
    expect(metrics).toContain('eks_upgrade_commands_total{subcommand="start",outcome="rejected"} 1');
    expect(metrics).toMatch(/eks_upgrade_ack_seconds_count 2\n/);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect(JSON.stringify(harness.logLines)).not.toContain(BOT_TOKEN);
    expect(JSON.stringify(harness.logLines)).not.toContain(SIGNING_SECRET);
  });
});

describe('jobs and job controls from the command line', () => {
  it('jobs lists the running job; pause by cluster needs an approver and reaches the engine once', async () => {
    const job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ' });
    await harness.fake.sendSlashCommand({ text: 'jobs', userId: 'U0PLAT', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length === 1);
    expect(ephemeralTexts(harness.fake, 'U0PLAT')[0]).toContain(`Job \`${job.jobId}\``);
    await harness.fake.sendSlashCommand({ text: 'pause demo', userId: 'U0PLAT', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0PLAT').length === 2);
    expect(ephemeralTexts(harness.fake, 'U0PLAT')[1]).toMatch(/Only the approvers of demo may pause/);
    await harness.fake.sendSlashCommand({ text: `pause ${job.jobId}`, userId: 'U0ONCALL', channelId: 'C0DEMO' });
    await harness.fake.waitFor((fake) => fake.ephemerals('U0ONCALL').length === 1);
    expect(ephemeralTexts(harness.fake, 'U0ONCALL')[0]).toBe('Paused the upgrade of demo (1.30 → 1.31).');
    expect(harness.control.mutations()).toEqual([{ method: 'pause', args: [job.jobId, 'U0ONCALL'] }]);
  });
});
