import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRolloutEngine, type RolloutEngine } from '../../jobs/rollout/rollout-engine.js';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import { systemClock } from '../../src/ports/clock.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import type { UpgradeControl } from '../../src/ports/upgrade-control.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

// A rollout is saved only with its gate card in Slack: when Slack refuses that card, the rollout is undone (no
// record that `status --all` would show as "waiting for an approver" with no Continue button anywhere) and the
// thread and the caller say so.
let engine: RolloutEngine | undefined;
let prefix = '';
let queues: QueueKit | undefined;
afterEach(async () => {
  await engine?.close();
  await queues?.close();
  engine = undefined;
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('a rollout whose gate card Slack refuses', () => {
  it('is undone: nothing saved, the thread says it was not created, the caller gets the sentence', async () => {
    prefix = freshPrefix('rollout-gate');
    queues = createQueueKit({ url: redisUrl }, prefix);
    const posts: Array<{ message: SlackMessage; threadTs?: string }> = [];
    const poster: ChannelPoster = {
      async post(_channel, message, threadTs) {
        posts.push({ message, threadTs });
        if (message.text.startsWith('Wave ')) throw new Error('An API error occurred: invalid_blocks');
        return { ts: `1700000000.${String(posts.length).padStart(6, '0')}` };
      },
    };
    const unreadable = () => {
      throw new Error('no AWS in this test');
    };
    const sources = { clock: systemClock, eks: unreadable, ec2: unreadable, ssm: unreadable, kube: unreadable } as unknown as SnapshotSources;
    engine = createRolloutEngine({
      queues,
      config: parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0FLEET'], requesters: ['U0REQ'], approvers: ['U0APP'] }] }),
      sources,
      control: {} as UpgradeControl,
      poster,
      logger: createLogger({ level: 'error', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    });
    const created = engine.control.create({ to: '1.31', waves: [{ globs: ['demo'], clusters: ['demo'] }], soakMs: 3600_000, maxParallel: 1, requestedBy: 'U0REQ', channel: 'C0FLEET' });
    await expect(created).rejects.toThrow(/posting the gate card of rollout r\w+ failed \(.*invalid_blocks\), so the rollout was undone: nothing was saved and nothing started/);
    expect(await engine.control.list()).toEqual([]);
    expect(await engine.control.findActiveFor('demo')).toBeUndefined();
    expect(posts.at(-1)?.message.text).toMatch(/This rollout was not created: posting its gate card failed/);
    expect(posts.at(-1)?.threadTs).toBe(posts[0].threadTs ?? '1700000000.000001');
  });
});
