import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createRolloutEngine, type RolloutEngine } from '../../jobs/rollout/rollout-engine.js';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import { systemClock, type Clock } from '../../src/ports/clock.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import type { UpgradeControl } from '../../src/ports/upgrade-control.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';

// A wave's gate plans its clusters with a 60 s bound on each read (jobs/rollout/rollout-engine.ts). That bound runs
// on the clock the entry point injects (`deadlineClock`), not on the system clock: a test on a driven clock sees a
// cluster that never answers reported in the gate card at once, instead of after a minute of real time.
let engine: RolloutEngine | undefined;
let queues: QueueKit | undefined;
let prefix = '';
afterEach(async () => {
  await engine?.close();
  await queues?.close();
  engine = undefined;
  await deleteKeys(`${prefix}:*`);
});

describe("a wave's gate on an injected deadline clock", () => {
  it('reports a cluster whose reads never answer as not plannable, as soon as that clock says the minute is up', async () => {
    prefix = freshPrefix('rollout-deadline');
    queues = createQueueKit({ url: redisUrl }, prefix);
    const posts: SlackMessage[] = [];
    const poster: ChannelPoster = {
      async post(_channel, message) {
        posts.push(message);
        return { ts: `1700000000.${String(posts.length).padStart(6, '0')}` };
      },
    };
    // DescribeCluster answers once (the version the wave plans from); every read after it hangs for ever.
    let described = 0;
    const never = () => new Promise<never>(() => {});
    const hanging = new Proxy({}, { get: () => never });
    const eks = () => new Proxy({}, { get: (_t, method) => (method === 'describeCluster' && described++ === 0 ? async () => ({ version: '1.31' }) : never) });
    const sources = { clock: systemClock, eks, ec2: () => hanging, ssm: () => hanging, kube: never, autoScaling: () => hanging } as unknown as SnapshotSources;
    // Every deadline on this clock is already past.
    const deadlineClock: Clock = { now: () => Date.now(), sleep: async () => undefined };
    engine = createRolloutEngine({
      queues,
      config: parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0FLEET'], requesters: ['U0REQ'], approvers: ['U0APP'] }] }),
      sources,
      deadlineClock,
      control: {} as UpgradeControl,
      poster,
      logger: createLogger({ level: 'error', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    });
    await engine.control.create({ to: '1.32', waves: [{ globs: ['demo'], clusters: ['demo'] }], soakMs: 3600_000, maxParallel: 1, requestedBy: 'U0REQ', channel: 'C0FLEET' });
    const gate = posts.find((message) => message.text.startsWith('Wave 1'));
    expect(JSON.stringify(gate?.blocks)).toContain('demo');
    expect(JSON.stringify(gate?.blocks)).toMatch(/cannot be planned: Reading demo did not answer within 60 s/);
  }, 20_000);
});
