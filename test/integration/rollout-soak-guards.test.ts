import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createRolloutEngine, type RolloutEngine } from '../../jobs/rollout/rollout-engine.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import { createLogger } from '../../src/log/logger.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { statusCommand } from '../../commands/status.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { createGuardEvaluationStore } from '../../src/store/guard-evaluation-store.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { startPrometheus } from '../support/prometheus-server.js';
import { redisUrl } from '../support/redis-url.js';
import { simControl } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { startEngineHarness, type EngineHarness } from './engine-harness.js';

/**
 * Guards during a rollout's soak (issue 29, docs/fleet.md), against a real Prometheus scraping the simulator's
 * kube-state-metrics: wave 1 is dev-a and dev-b, wave 2 is prod-c, each cluster with a guard on its own `web`
 * Deployment's availability. The upgrades run through the real engine; once wave 1 soaks, dev-b's web fails on
 * 1.31 (as a workload broken by the new version would): its guard breaches, the soak fails naming dev-b, the guard
 * and the value against the threshold, and wave 2 never starts. With the guards healthy the soak passes.
 */
const CLUSTERS = ['dev-a', 'dev-b', 'prod-c'];
const who = { region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { controlPlane: false, nodegroups: false, karpenter: false, selfManaged: false, fargate: false } };
const availability = (cluster: string) => `min(kube_deployment_status_replicas_available{cluster="${cluster}", namespace="shop", deployment="web"} / kube_deployment_spec_replicas{cluster="${cluster}", namespace="shop", deployment="web"})`;

/** demo.yaml's cluster three times over (the names above), each at 1.30 with its shop/web Deployment. */
function threeDemos(): object {
  const world = parseYaml(readFileSync(new URL('../../src/sim/scenarios/demo.yaml', import.meta.url), 'utf8'));
  const demo = world.clusters[0];
  world.clusters = CLUSTERS.map((name) => ({ ...structuredClone(demo), name }));
  return world;
}

let harness: EngineHarness | undefined;
let prometheus: LocalDaemon | undefined;
let rollouts: RolloutEngine | undefined;
afterEach(async () => {
  await rollouts?.close();
  await prometheus?.stop();
  await harness?.close();
  rollouts = prometheus = harness = undefined;
});

interface Post { text: string; at: number }

async function startRollout(soakMs: number) {
  harness = await startEngineHarness({ scenario: threeDemos(), speed: 600, config: parseClustersConfig({ clusters: CLUSTERS.map((name) => ({ name, ...who })) }) });
  const h = harness;
  const server = (prometheus = await startPrometheus({ scrapeTargets: [new URL(h.sim.url).host], metricsPath: '/_sim/metrics' }));
  const config = parseClustersConfig({
    clusters: CLUSTERS.map((name) => ({ name, ...who, guards: [{ name: 'web available', prometheus: { url: server.url, query: availability(name), breachWhen: '< 1', for: '3s' }, interval: '1s' }] })),
  });
  const inner = createGuardReader({ cloudWatch: createCloudWatchGuardReader(), credentialsFor: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }) });
  // The rollout's own reads, timed: the soak reads the guards only while it runs.
  const soakReads: number[] = [];
  const guards: GuardReader = { read: (...args) => (soakReads.push(Date.now()), inner.read(...args)), history: (...args) => inner.history(...args) };
  const engine = h.engine({ config, guards: inner });
  await engine.startWorker();
  const posts: Post[] = [];
  const poster: ChannelPoster = {
    async post(_channel, message) {
      posts.push({ text: message.text, at: Date.now() });
      return { ts: `1700000000.${String(posts.length).padStart(6, '0')}` };
    },
  };
  rollouts = createRolloutEngine({
    queues: h.queues, config, sources: h.sources, control: engine.control, poster, guards, pollMs: 250,
    logger: createLogger({ level: process.env.ENGINE_TEST_LOG ?? 'silent' }),
  });
  await rollouts.startWorker();
  await until(async () => ((await fetch(`${server.url}/api/v1/query?query=${encodeURIComponent(availability('dev-b'))}`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator');
  const rollout = await rollouts.control.create({ to: '1.31', waves: [{ globs: ['dev-*'], clusters: ['dev-a', 'dev-b'] }, { globs: ['prod-*'], clusters: ['prod-c'] }], soakMs, maxParallel: 2, requestedBy: 'U0REQ', channel: 'C0OPS' });
  expect(await rollouts.control.continue(rollout.id, 'U0APP')).toMatchObject({ ok: true });
  const post = (pattern: RegExp, what: string, timeoutMs = 120_000) => until(() => posts.find((p) => pattern.test(p.text)), () => `${what}; the rollout's thread so far:\n${posts.map((p) => p.text).join('\n')}`, timeoutMs);
  const version = async (name: string) => (await h.sources.eks({ region: 'us-west-2' }).describeCluster(name)).version;
  return { h: { ...h, config, control: engine.control }, id: rollout.id, posts, post, soakReads, version };
}

describe('rollout soak with guards on a real Prometheus', () => {
  it("stops the rollout when a guard of a wave's cluster breaches during the soak, naming the cluster, the guard and the value; the next wave never starts", async () => {
    const { h, id, posts, post, soakReads, version } = await startRollout(10 * 60_000);
    const soaking = await post(/Wave 1 upgraded .*soaking 10 ?m.*watching 2 guards \(a breach stops the rollout\)/, 'the soak of wave 1');
    expect(soakReads.filter((at) => at < soaking.at - 1_000)).toEqual([]);
    // The new version breaks dev-b's web: its pods turn NotReady on the 1.31 nodes.
    await simControl(h.sim, 'POST', 'workloads/fail', { cluster: 'dev-b', namespace: 'shop', name: 'web', onVersion: '1.31' });
    const stopped = await post(/soak of wave 1 failed/, 'the soak to fail', 60_000);
    expect(stopped.text).toMatch(/The soak of wave 1 failed and the rollout stops: guard "web available" of dev-b breached since \d\d:\d\d:\d\d UTC: 0(\.\d+)? \(breached when &lt; 1\)\. No later wave starts; the clusters of this wave stay at 1\.31/);
    expect(stopped.text).not.toContain('of dev-a');
    const rollout = (await rollouts!.control.get(id))!;
    expect(rollout.state).toBe('failed');
    expect(rollout.reason).toMatch(/^during the soak of wave 1, guard "web available" of \*dev-b\* breached/);
    // The soak stopped well before its 10 minutes; wave 2's gate was never posted and prod-c was never touched.
    expect(stopped.at - soaking.at).toBeLessThan(10 * 60_000);
    expect(posts.filter((p) => /^Wave 2 of 2/.test(p.text))).toEqual([]);
    expect(posts.filter((p) => /is healthy after its soak/.test(p.text))).toEqual([]);
    expect(h.calls('UpdateClusterVersion').map((call) => call.cluster).sort()).toEqual(['dev-a', 'dev-b']);
    expect(await version('prod-c')).toBe('1.30');
    // `/eks-upgrade status dev-b` shows the soak's last evaluation (it reads no guard itself: it has no reader);
    // prod-c's guard was never evaluated, and its card says so.
    const redis = new Redis(redisUrl);
    try {
      const readsBefore = soakReads.length;
      const deps: BotDeps = {
        config: h.config, eks: h.sources.eks, ec2: h.sources.ec2, ssm: h.sources.ssm, kube: h.sources.kube, control: h.control, audit: undefined as never,
        usergroups: { members: async () => [] }, clock: h.sources.clock, logger: createLogger({ level: 'silent' }), guardEvaluations: createGuardEvaluationStore(redis, h.prefix),
      };
      const card = async (cluster: string) => {
        const replies: SlackMessage[] = [];
        await statusCommand({ args: [cluster], userId: 'U0REQ', channelId: 'C0OPS', deps, respond: async (message) => void replies.push(message) });
        for (const reply of replies) expect(checkMessageBlocks(reply.blocks)).toEqual([]);
        return replies.flatMap((reply) => (reply.blocks ?? []).map((block) => JSON.stringify(block))).join('\n');
      };
      expect(await card('dev-b')).toMatch(new RegExp(`🔴 \\*web available\\*: breached, 0 \\(breached when &lt; 1\\); read \\d\\d:\\d\\d:\\d\\d UTC \\(\\d{4}-\\d\\d-\\d\\d\\) by the soak of wave 1 of rollout \`${id}\``));
      expect(await card('dev-a')).toMatch(/🟢 \*web available\*: healthy, 1 \(breached when &lt; 1\); read .* by the soak of wave 1/);
      expect(await card('prod-c')).toContain('⏳ *web available*: not evaluated since no job ran, watches min(kube_deployment_status_replicas_available');
      expect(soakReads.length).toBe(readsBefore);
    } finally {
      await redis.quit();
    }
  }, 300_000);

  it('passes the soak when every guard of the wave stays healthy, and opens the next gate', async () => {
    const { id, post, posts, soakReads } = await startRollout(8_000);
    const soaking = await post(/Wave 1 upgraded .*watching 2 guards/, 'the soak of wave 1');
    const healthy = await post(/Wave 1 is healthy after its soak/, 'the soak to pass');
    expect(healthy.text).toContain('2 guards healthy throughout');
    await post(/^Wave 2 of 2 is ready/, "wave 2's gate");
    expect(posts.some((p) => /soak of wave 1 failed/.test(p.text))).toBe(false);
    // Both clusters' guards were read through the soak (at their 1 s interval), and only while it ran.
    const during = soakReads.filter((at) => at >= soaking.at - 1_000 && at <= healthy.at);
    expect(during.length).toBeGreaterThanOrEqual(2 * 4);
    expect(soakReads.length).toBe(during.length);
    expect((await rollouts!.control.get(id))!.state).toBe('gate');
  }, 300_000);
});
