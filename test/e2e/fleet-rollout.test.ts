import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';
import { answerEveryGate } from '../support/e2e-thread.js';

/**
 * A rollout in waves on `fleet --clusters 30` (the clusters at 1.31 that clusters.yaml lists), the bot on the
 * simulator's clock at speed 600: three waves with a 30-minute soak between them complete, each cluster upgraded in
 * its own thread; then a second rollout whose first cluster's control-plane update fails stops with the reason and
 * leaves the next wave untouched.
 */
const SPEED = 600;
const MINUTE = 60_000;
const who = { channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };
const clusters = [
  { name: 'dev-022', region: 'us-east-1', ...who },
  { name: 'staging-002', region: 'eu-west-1', ...who },
  { name: 'prod-012', region: 'us-west-2', ...who },
  { name: 'staging-017', region: 'eu-west-1', ...who },
  { name: 'prod-027', region: 'us-west-2', ...who },
];

describe('rollout in waves with soak gates on the fleet scenario', () => {
  let stack: E2eStack;
  let gates: { stop(): void } | undefined;

  const rolloutParent = (id: string) => stack.fake.messages('C0OPS').find((m) => m.text.startsWith(`:ocean: Rollout \`${id}\``) || m.text.startsWith(`Rollout \`${id}\``) || m.text.includes(`Rollout \`${id}\` to`));
  const replyMatching = (id: string, pattern: RegExp) => rolloutParent(id)?.replies.find((r) => pattern.test(r.text));
  async function waitReply(id: string, pattern: RegExp, timeoutMs = 40_000): Promise<FakeMessage> {
    return stack.fake.waitFor(() => replyMatching(id, pattern), { timeoutMs });
  }
  async function createRollout(text: string): Promise<string> {
    expect((await stack.fake.sendSlashCommand({ text, userId: 'U0REQ', channelId: 'C0OPS' })).status).toBe(200);
    const created = await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => e.text.startsWith('Created rollout') && !seen.has(e.ts)), { timeoutMs: 30_000 });
    seen.add(created.ts);
    return /`(r[0-9a-f]{7})`/.exec(created.text)![1];
  }
  const seen = new Set<string>();
  async function version(name: string): Promise<string | undefined> {
    return (await stack.eksClient().send(new DescribeClusterCommand({ name }))).cluster?.version;
  }

  beforeAll(async () => {
    // Rate limits off: the soak is checked from the posts' times, which Slack's one-post-a-second pace would shift
    // (test/integration/fake-slack-rate-limits.test.ts shows the bot riding out 429s).
    stack = await startE2eStack({ scenario: 'fleet', fleetClusters: 30, speed: SPEED, botClock: 'sim', pollSeconds: 60, clusters, slackRateLimits: 'off' });
    gates = answerEveryGate(stack.fake, 'C0OPS', 'U0APP');
  }, 60_000);

  afterAll(async () => {
    gates?.stop();
    await stack?.close();
  });

  it('three waves, each opened by an approver after its soak and health check, bring every cluster to 1.32', async () => {
    const id = await createRollout("rollout --to 1.32 --waves 'dev-*' 'staging-002' 'prod-012' --soak 30m --max-parallel 2");
    const gate1 = await waitReply(id, /^Wave 1 of 3 is ready/);
    expect(gate1.blocks && JSON.stringify(gate1.blocks)).toMatch(/dev-022\* 1\.31 → 1\.32: \d+ steps/);
    // The requester may start the rollout but not approve its waves.
    await stack.fake.clickButton({ userId: 'U0REQ', channelId: 'C0OPS', messageTs: gate1.ts, actionId: 'fleet:rollout' });
    const refused = await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => /Only approvers of dev-022 may continue/.test(e.text)), { timeoutMs: 20_000 });
    expect(refused.text).toContain('<@U0APP>');

    for (let wave = 1; wave <= 3; wave++) {
      const gate = await waitReply(id, new RegExp(`^Wave ${wave} of 3 is ready`), 60_000);
      if (wave === 2) {
        // While the gate waits: `jobs` shows the rollout's wave and progress, `status --all` marks its clusters.
        await stack.fake.sendSlashCommand({ text: 'jobs', userId: 'U0APP', channelId: 'C0OPS' });
        const jobs = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => e.text.includes(`\`${id}\` → 1.32`)), { timeoutMs: 20_000 });
        expect(jobs.text).toContain(`\`${id}\` → 1.32: wave 2 of 3 (staging-002), waiting for an approver; 1 of 3 clusters done`);
        await stack.fake.sendSlashCommand({ text: 'status --all', userId: 'U0APP', channelId: 'C0OPS' });
        const marked = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => e.text.startsWith(':ocean: In rollout')), { timeoutMs: 30_000 });
        expect(marked.text).toBe(`:ocean: In rollout \`${id}\` to 1.32 (wave 2 of 3, waiting for an approver): dev-022, staging-002, prod-012`);
      }
      await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: gate.ts, actionId: 'fleet:rollout' });
      const upgraded = await waitReply(id, new RegExp(`Wave ${wave} upgraded`), 60_000);
      if (wave < 3) {
        const next = await waitReply(id, new RegExp(`^Wave ${wave + 1} of 3 is ready`), 60_000);
        // The next gate opens only once the soak has passed on the simulated clock.
        expect((next.postedAt - upgraded.postedAt) * SPEED).toBeGreaterThanOrEqual(29 * MINUTE);
      }
    }
    await waitReply(id, /Rollout to 1\.32 succeeded/, 60_000);
    for (const name of ['dev-022', 'staging-002', 'prod-012']) expect(await version(name)).toBe('1.32');
    // Each cluster was upgraded in its own thread, linked from the rollout's.
    const links = rolloutParent(id)!.replies.filter((r) => /started \(job `u/.test(r.text));
    expect(links.map((r) => /\*?(\S+?)\*? 1\.31 → 1\.32 started/.exec(r.text)?.[1])).toEqual(['dev-022', 'staging-002', 'prod-012']);
    expect(stack.deniedCalls()).toEqual([]);
  }, 120_000);

  it('a cluster whose upgrade fails stops its wave and the rollout, with the reason; later waves are untouched', async () => {
    const fault = await fetch(`${stack.sim.url}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failNextClusterUpdate: { cluster: 'staging-017', errorCode: 'IpNotAvailable', errorMessage: 'Subnets have insufficient free IP addresses' } }),
    });
    expect(fault.ok).toBe(true);
    const id = await createRollout("rollout --to 1.32 --waves 'staging-*' 'prod-*' --soak 30m --max-parallel 1");
    const created = stack.fake.ephemerals('U0REQ').find((e) => e.text.includes(id))!;
    expect(created.text).toContain('Left out, already at 1.32 or newer: staging-002 (1.32), prod-012 (1.32).');
    const gate = await waitReply(id, /^Wave 1 of 2 is ready/);
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: gate.ts, actionId: 'fleet:rollout' });
    const stopped = await waitReply(id, /Wave 1 stopped and the rollout with it/, 60_000);
    expect(stopped.text).toMatch(/staging-017's upgrade failed at step control plane to 1\.32 \(job `u[0-9a-f]{7}`, <https:\/\/slack\.com\/archives\/C0OPS\/p\d+\|its thread>\)/);
    expect(await version('staging-017')).toBe('1.31');
    expect(await version('prod-027')).toBe('1.31');
    expect(replyMatching(id, /^Wave 2 of 2/)).toBeUndefined();
  }, 90_000);

  it('Pause and Abort on the rollout act on every running upgrade of its wave', async () => {
    const id = await createRollout("rollout --to 1.32 --waves 'staging-017 prod-027' --soak 30m --max-parallel 2");
    const gate = await waitReply(id, /^Wave 1 of 1 is ready/);
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: gate.ts, actionId: 'fleet:rollout' });
    await waitReply(id, /staging-017\* 1\.31 → 1\.32 started|staging-017 1\.31 → 1\.32 started/);
    await waitReply(id, /prod-027\* 1\.31 → 1\.32 started|prod-027 1\.31 → 1\.32 started/);
    const parent = rolloutParent(id)!;
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: parent.ts, actionId: 'fleet:rollout-pause' });
    const paused = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => e.text.startsWith(`Paused rollout \`${id}\``)), { timeoutMs: 20_000 });
    expect(paused.text).toContain('2 running upgrades stop at their next safe point');
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: parent.ts, actionId: 'fleet:rollout-abort' });
    const aborted = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => e.text.startsWith(`Aborted rollout \`${id}\``)), { timeoutMs: 20_000 });
    expect(aborted.text).toContain('2 running upgrades stop after the current AWS operation');
    const stopped = await waitReply(id, /Wave 1 stopped and the rollout with it: it was aborted \(aborted by <@U0APP>\)/, 60_000);
    expect(stopped).toBeDefined();
    await stack.fake.sendSlashCommand({ text: 'jobs', userId: 'U0APP', channelId: 'C0OPS' });
    const jobs = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => e.text.includes(`\`${id}\` → 1.32: wave 1 of 1`) && /prod-027/.test(e.text) && !/running, step/.test(e.text)), { timeoutMs: 30_000 });
    expect(jobs.text).toMatch(/\*staging-017\* 1\.31 → 1\.32: aborted/);
    expect(jobs.text).toMatch(/\*prod-027\* 1\.31 → 1\.32: aborted/);
  }, 90_000);
});
