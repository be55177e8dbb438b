import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';
import { createRolloutEngine, type RolloutEngine } from '../../jobs/rollout/rollout-engine.js';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { createLogger } from '../../src/log/logger.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import { systemClock } from '../../src/ports/clock.js';
import { createFakeUpgradeControl } from '../support/fake-upgrade-control.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';

// `--max-parallel 50` (the most the command accepts) runs 50 upgrades of a wave at once from one worker process:
// each lane is a job on the rollout queue, and the rollout worker had 20 slots, so a wave of 60 ran 20 at a time.
// The wave's 60 clusters are planned for real against the simulator's `fleet` (every cluster healthy at 1.32);
// the upgrades are an in-memory control whose jobs stay running, so the count of starts is the count at once.
const CLUSTERS = 60;
const MAX_PARALLEL = 50;
let engine: RolloutEngine | undefined;
let sim: SimServer | undefined;
let prefix = '';
let queues: QueueKit | undefined;
afterEach(async () => {
  await engine?.close();
  await queues?.close();
  await sim?.close();
  engine = undefined;
  sim = undefined;
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('a rollout wave at --max-parallel 50', () => {
  it('starts 50 upgrades at once from one worker, and no more until one ends', async () => {
    prefix = freshPrefix('rollout-parallel');
    queues = createQueueKit({ url: redisUrl }, prefix);
    sim = await startSimulator({ scenario: 'fleet', clusters: CLUSTERS, fleetVersion: '1.32', port: 0, host: '127.0.0.1', speed: 600 });
    const names = [...sim.world.clusters.keys()];
    const config = parseClustersConfig({ clusters: names.map((name) => ({ name, region: sim!.world.cluster(name)!.region, channels: ['C0FLEET'], requesters: ['U0REQ'], approvers: ['U0APP'] })) });
    const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
    const aws = { endpoint: sim.url, credentials };
    const logger = createLogger({ level: 'error', destination: new Writable({ write: (_c, _e, done) => done() }) });
    const eks = createEksPortFactory(aws);
    const sources = { clock: systemClock, eks, kube: createKubePortFactory({ eks, credentials, clock: systemClock, logger }), ssm: createSsmPortFactory(aws), ec2: createEc2PortFactory(aws), autoScaling: createAutoScalingPortFactory(aws) };
    let posts = 0;
    const poster: ChannelPoster = { post: async () => ({ ts: `1700000000.${String(++posts).padStart(6, '0')}` }) };
    const control = createFakeUpgradeControl();
    engine = createRolloutEngine({ queues, config, sources, control, poster, logger, pollMs: 250 });
    await engine.startWorker();

    const rollout = await engine.control.create({ to: '1.33', waves: [{ globs: ['*'], clusters: names }], soakMs: 0, maxParallel: MAX_PARALLEL, requestedBy: 'U0REQ', channel: 'C0FLEET' });
    expect(await engine.control.continue(rollout.id, 'U0APP')).toMatchObject({ ok: true });
    const starts = () => control.calls.filter((call) => call.method === 'start').length;
    await until(() => starts() >= MAX_PARALLEL, () => `${MAX_PARALLEL} upgrades to be started at once (${starts()} so far)`, 60_000);
    // Every lane follows its running upgrade: the 51st cluster waits for one of them to end.
    const later = control.calls.length;
    await until(() => control.calls.length > later + 2 * MAX_PARALLEL, 'each lane to look at its upgrade twice more');
    expect(starts()).toBe(MAX_PARALLEL);
  }, 120_000);
});
