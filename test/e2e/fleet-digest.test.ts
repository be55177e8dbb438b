import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeClusterCommand, paginateDescribeClusterVersions, type ClusterVersionInformation } from '@aws-sdk/client-eks';
import { Queue } from 'bullmq';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { createLogger } from '../../src/log/logger.js';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { FLEET_QUEUE } from '../../jobs/fleet/fleet-scheduler.js';
import { E2E_CREDENTIALS, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';

/**
 * The fleet digest as a channel sees it, on the simulated calendar: the simulator's clock starts twenty minutes
 * before Monday 09:00 in Berlin, the bot runs on that clock, and two worker processes share the queue. The weekly
 * digest arrives once, at its tick, with days left and extended-support cost as EKS's own version calendar gives
 * them; a ten-minute digest in a second channel posts exactly once per tick; a Plan button posts the plan in the
 * digest's thread.
 */
const DAY = 24 * 3600_000;
const TICK = Date.parse('2026-12-07T08:00:00Z'); // Monday 7 December 2026, 09:00 Europe/Berlin
// 300: a ten-minute tick every 2 real seconds. At 600 the ten-minute schedule came every second, and on a busy
// machine its digests (each a read of two clusters) queued up in front of the weekly one, which then missed its slot.
const SPEED = 300;
/**
 * A digest's read of one cluster is bounded in real time (20 s in production, a guard against an API server that does
 * not answer). With a second suite on the same two cores, the in-process simulator was starved past it and the rows
 * said "could not be read" (7 December, load 12–15): here the bound is 90 s, which still ends a hung read.
 */
const READ_TIMEOUT_MS = 90_000;
const REGIONS = ['us-west-2', 'us-east-1', 'eu-west-1'];
const names = ['dev-001', 'staging-002', 'prod-003', 'dev-004', 'staging-005', 'prod-006'];

const digestsOf = (fake: E2eStack['fake'], channel: string): FakeMessage[] =>
  fake.messages(channel).filter((m) => m.source === 'chat.postMessage' && m.text.startsWith('Fleet digest'));

function sectionOf(message: FakeMessage, cluster: string): string {
  const section = (message.blocks ?? []).find((b) => (b as { accessory?: { value?: string } }).accessory?.value === cluster) as { text: { text: string } } | undefined;
  if (!section) throw new Error(`no row for ${cluster} in the digest:\n${message.text}`);
  return section.text.text;
}

describe('fleet digest on the simulated calendar, two workers', () => {
  let stack: E2eStack;
  let second: RunningBot | undefined;

  beforeAll(async () => {
    stack = await startE2eStack({
      scenario: 'fleet',
      fleetClusters: names.length,
      speed: SPEED,
      botClock: 'sim',
      // 6 real seconds for both bots to start before the tick, which takes more than 2 on a busy machine: a bot whose
      // fleet scheduler upserts the weekly schedule after its tick was due moves it on to the next Monday.
      simStart: TICK - 6_000 * SPEED,
      clusters: names.map((name, i) => ({
        name,
        region: REGIONS[(i + 1) % 3],
        channels: name.startsWith('dev') ? ['C0OPS', 'C0DEV'] : ['C0OPS'],
        requesters: ['U0REQ'],
        approvers: ['U0APP'],
      })),
      digests: [
        { channel: 'C0OPS', schedule: '0 9 * * MON', timezone: 'Europe/Berlin', clusters: ['prod-*', 'staging-*', 'dev-*'] },
        { channel: 'C0DEV', schedule: '*/10 * * * *' },
      ],
      fleetReadTimeoutMs: READ_TIMEOUT_MS,
    });
    second = await startBot({
      env: { ...stack.env, ROLE: 'worker', PORT: 0 },
      config: stack.config,
      logger: createLogger({ level: 'silent' }),
      aws: { endpoint: stack.sim.url, credentials: E2E_CREDENTIALS },
      clock: stack.sim.clock,
      fleetReadTimeoutMs: READ_TIMEOUT_MS,
    });
    if (stack.sim.clock.now() >= TICK) throw new Error(`the two bots took longer to start than the simulated calendar's lead (6 s); it is already ${new Date(stack.sim.clock.now()).toISOString()}`);
  }, 60_000);

  afterAll(async () => {
    await second?.stop();
    await stack?.close();
  });

  it('posts the weekly digest once at Monday 09:00 Berlin, with days left and cost from the simulated calendar', async () => {
    const [digest] = await stack.fake.waitFor((f) => (digestsOf(f, 'C0OPS').length > 0 ? digestsOf(f, 'C0OPS') : undefined), { timeoutMs: READ_TIMEOUT_MS + 30_000 });
    expect(digest.text).toMatch(/^Fleet digest · 6 clusters · Mon, 07 Dec 2026, 09:0\d Europe\/Berlin/);
    const eks = stack.eksClient();
    // DescribeClusterVersions answers in pages, in no particular order (docs/simulator-fidelity.md): read them all.
    const versions: ClusterVersionInformation[] = [];
    for await (const page of paginateDescribeClusterVersions({ client: eks }, { includeAll: true })) versions.push(...(page.clusterVersions ?? []));
    for (const name of names) {
      const region = REGIONS[(names.indexOf(name) + 1) % 3];
      const { cluster } = await stack.eksClient().send(new DescribeClusterCommand({ name }));
      expect(cluster?.arn).toContain(region);
      const info = versions.find((v) => v.clusterVersion === cluster!.version)!;
      const days = Math.ceil((info.endOfStandardSupportDate!.getTime() - TICK) / DAY);
      const row = sectionOf(digest, name);
      expect(row).toContain(`*${name}* ${cluster!.version} · standard support ends ${info.endOfStandardSupportDate!.toISOString().slice(0, 10)}`);
      expect(row).toContain(days < 0 ? `(ended ${-days} days ago)` : `(${days} days left)`);
      const cost = cluster!.upgradePolicy?.supportType === 'STANDARD' ? 'none (auto-upgrade)' : days < 0 ? '$438/mo now' : '$438/mo if it lapses';
      expect(row).toContain(`extended support ${cost}`);
    }
    // The calendar as a person reads it: 1.31's standard support ends 42 days after this Monday.
    expect(sectionOf(digest, 'staging-002')).toContain('1.31 · standard support ends 2027-01-18 (42 days left)');
    // Most urgent first: the clusters already in extended support lead.
    const order = (digest.blocks ?? []).flatMap((b) => (b as { accessory?: { value: string } }).accessory?.value ?? []);
    expect(order.slice(0, 3).sort()).toEqual(['dev-001', 'prod-006', 'staging-005']);
  });

  it('with two workers, a ten-minute digest posts exactly once per tick; a support reminder once per threshold', async () => {
    // Past 09:00 UTC: two hourly reminder checks (08:00 and 09:00 UTC) have run.
    await until(() => stack.sim.clock.now() > TICK + 65 * 60_000 && digestsOf(stack.fake, 'C0DEV').length >= 8, 'digests until 09:05 UTC', 90_000);
    // Stop the schedules where they are: no worker takes a new tick, and the ones running finish.
    const queue = new Queue(FLEET_QUEUE, { connection: { url: stack.env.REDIS_URL }, prefix: stack.prefix });
    await queue.pause();
    await until(async () => (await queue.getActiveCount()) === 0, 'running ticks to finish');
    const posts = digestsOf(stack.fake, 'C0DEV');
    expect(digestsOf(stack.fake, 'C0OPS')).toHaveLength(1); // the weekly one, still once
    try {
      const ticks = (await queue.getJobs(['completed', 'failed', 'active'])).filter((job) => job.repeatJobKey?.startsWith('digest:C0DEV'));
      expect(new Set(ticks.map((job) => job.id)).size).toBe(ticks.length);
      expect(posts).toHaveLength(ticks.filter((job) => job.finishedOn && !job.failedReason).length);
    } finally {
      await queue.close();
    }
    // Each post belongs to its own ten-minute slot of the simulated calendar (two slow ticks may overlap).
    const slots = posts.map((post) => {
      const [, hour, minute] = /, (\d\d):(\d\d) UTC/.exec(post.text)!;
      return Number(hour) * 6 + Math.floor(Number(minute) / 10);
    });
    expect(new Set(slots).size).toBe(slots.length);
    for (const post of posts) expect(post.text).toMatch(/^Fleet digest · 2 clusters · Mon, 07 Dec 2026/);
    // staging-002's 1.31 has 42 days of standard support left: the 60-day reminder, once, in its channel.
    const reminders = stack.fake.messages('C0OPS').filter((m) => m.text.includes('standard support ends') && !m.text.startsWith('Fleet digest'));
    expect(reminders.map((m) => m.text)).toEqual([
      'staging-002 (1.31): standard support ends 2027-01-18, in 42 days; it then moves to extended support at $438 a month. Plan for 1.32: 0 blocking findings, 7 steps, ~42 min. (Reminder at 60 days.)',
    ]);
  });
  it('a Plan button posts the plan in the digest thread, for someone of the cluster channel', async () => {
    // A person reads the plan at human pace: the plan's 60 s read deadline is on the bot's (simulated) clock.
    stack.sim.clock.setSpeed!(10);
    const [digest] = digestsOf(stack.fake, 'C0OPS');
    const click = await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: digest.ts, actionId: 'fleet:plan', value: 'prod-003' });
    expect(click.status).toBe(200);
    const reply = await stack.fake.waitFor((f) => f.messages('C0OPS').find((m) => m.ts === digest.ts)?.replies.find((r) => /prod-003/.test(r.text)), { timeoutMs: 30_000 });
    expect(reply.text).toMatch(/1\.32 → 1\.33/);
  });

  it('a reminder\'s Start button starts the upgrade for a requester and is refused to anyone else', async () => {
    const reminder = stack.fake.messages('C0OPS').find((m) => m.text.startsWith('staging-002 (1.31): standard support ends'))!;
    const start = { channelId: 'C0OPS', messageTs: reminder.ts, actionId: 'fleet:start' };
    expect((await stack.fake.clickButton({ ...start, userId: 'U0APP' })).status).toBe(200);
    const refusal = await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => /may not start|requesters/i.test(e.text)), { timeoutMs: 20_000 });
    expect(refusal.text).toMatch(/staging-002/);
    expect((await stack.fake.clickButton({ ...start, userId: 'U0REQ' })).status).toBe(200);
    const started = await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => e.text.startsWith('Started upgrading staging-002 from 1.31 to 1.32')), { timeoutMs: 30_000 });
    expect(started.text).toMatch(/Follow it in its/);
    await stack.fake.waitFor((f) => f.messages('C0OPS').find((m) => /EKS upgrade · /.test(m.text) && m.text.includes('staging-002')), { timeoutMs: 20_000 });
  });

  it('/eks-upgrade digest posts the channel digest on demand, visibly; every AWS call stayed within the shipped policy', async () => {
    expect((await stack.fake.sendSlashCommand({ text: 'digest', userId: 'U0REQ', channelId: 'C0DEV' })).status).toBe(200);
    const posted = await stack.fake.waitFor((f) => f.messages('C0DEV').find((m) => m.source === 'response_url' && m.text.startsWith('Fleet digest')), { timeoutMs: 30_000 });
    expect(posted.text).toMatch(/^Fleet digest · 2 clusters/);
    expect(JSON.stringify(posted.blocks)).toContain('On demand by <@U0REQ>');
    expect(stack.deniedCalls()).toEqual([]);
  });
});
