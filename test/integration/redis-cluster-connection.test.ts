import { randomUUID } from 'node:crypto';
import { FlowProducer, Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/config/env-config.js';
import { deleteKeysUnder } from '../../src/demo/ensure-redis.js';
import { redisChecks } from '../../src/doctor/redis-checks.js';
import { bullConnection, connectRedis, deleteMatching, keyPrefixFor, redisTargetOf, scanNodes, type RedisClient } from '../../src/store/redis-connection.js';
import { createWaiverStore } from '../../src/waivers/store/redis-waiver-store.js';
import { haveRedisClusterTools, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';
import { until } from '../support/until.js';

/**
 * The connection layer against a real three-master Redis Cluster: the environment names its seeds, the prefix is
 * hash-tagged so a BullMQ queue and the bot's multi-key scripts run (a plain prefix is refused with CROSSSLOT, which
 * is why the tag is there), and removing keys visits every master.
 */
describe.skipIf(!haveRedisClusterTools() && !process.env.CI)('on a Redis Cluster (three masters, three replicas)', () => {
  let cluster: RedisClusterHandle;
  let redis: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    redis = connectRedis(redisTargetOf(parseEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'a-signing-secret', REDIS_CLUSTER_NODES: cluster.seeds })), { maxRetriesPerRequest: 3 });
  }, 120_000);

  afterAll(async () => {
    await redis?.quit().catch(() => undefined);
    await cluster?.stop();
  });

  it('REDIS_CLUSTER_NODES wins over REDIS_URL and reaches every master', async () => {
    const target = redisTargetOf(parseEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'a-signing-secret', REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.seeds }));
    expect(target.cluster?.nodes).toHaveLength(6);
    await redis.set(`probe-${randomUUID()}`, '1', 'EX', 60);
    expect(scanNodes(redis)).toHaveLength(3);
  });

  it('doctor and the start-up check reach the cluster through its seeds, even with REDIS_URL pointing nowhere', async () => {
    const checks = await redisChecks({ ...cluster.target, url: 'redis://127.0.0.1:1' });
    expect(checks.find((c) => c.id === 'redis.reachable')).toMatchObject({ ok: true, detail: `Redis at the Redis Cluster seeded by ${cluster.seeds} answers` });
    expect(checks.find((c) => c.id === 'redis.version')?.ok).toBe(true);
  });

  it('a BullMQ queue under the hash-tagged prefix takes and runs a job; under the plain prefix the cluster refuses it', async () => {
    const plain = `test-cluster-${randomUUID().slice(0, 8)}`;
    const prefix = keyPrefixFor(cluster.target, plain);
    expect(prefix).toBe(`{${plain}}`);
    const queueConnection = bullConnection(cluster.target, { maxRetriesPerRequest: 1 });
    const workerConnection = bullConnection(cluster.target, { maxRetriesPerRequest: null });
    // BullMQ does not close a connection it was given: each is released below, or its cluster client would go on
    // refreshing the slots of a stopped cluster in this test worker, printing "Unhandled error event" into later files.
    const untaggedConnection = bullConnection(cluster.target, { maxRetriesPerRequest: 1 });
    const queue = new Queue('eks-upgrades', { connection: queueConnection.connection, prefix });
    const ran: string[] = [];
    const worker = new Worker('eks-upgrades', async (job) => void ran.push(String(job.id)), { connection: workerConnection.connection, prefix });
    try {
      await queue.add('upgrade', { cluster: 'demo' }, { jobId: 'j1' });
      await until(() => ran.includes('j1'), 'the job to run on the cluster');
      // The same queue without the tag: BullMQ's Lua scripts touch keys in several slots, which a cluster refuses.
      const untagged = new Queue('eks-upgrades', { connection: untaggedConnection.connection, prefix: plain });
      await expect(untagged.add('upgrade', {})).rejects.toThrow(/CROSSSLOT/);
      await untagged.close();
    } finally {
      await worker.close();
      await queue.close();
      await Promise.all([queueConnection.release(), workerConnection.release(), untaggedConnection.release()]);
    }
  });

  it('a flow (a rollout\'s wave and its lanes, in one Lua script) runs under the tagged prefix: lanes first, then the wave', async () => {
    const prefix = keyPrefixFor(cluster.target, `test-cluster-${randomUUID().slice(0, 8)}`);
    const flowConnection = bullConnection(cluster.target, { maxRetriesPerRequest: null });
    const workerConnection = bullConnection(cluster.target, { maxRetriesPerRequest: null });
    const flows = new FlowProducer({ connection: flowConnection.connection, prefix });
    const ran: string[] = [];
    const worker = new Worker('rollout', async (job) => void ran.push(job.name), { connection: workerConnection.connection, prefix, concurrency: 4 });
    try {
      await flows.add({ name: 'wave', queueName: 'rollout', data: {}, children: [0, 1, 2].map((i) => ({ name: `lane-${i}`, queueName: 'rollout', data: {} })) });
      await until(() => ran.includes('wave'), 'the wave to run once its lanes have');
      expect(ran.slice(0, 3).sort()).toEqual(['lane-0', 'lane-1', 'lane-2']);
      expect(ran.at(-1)).toBe('wave');
    } finally {
      await worker.close();
      await flows.close();
      await Promise.all([flowConnection.release(), workerConnection.release()]);
      await deleteMatching(redis, `${prefix}:*`);
    }
  });

  it('the waiver store, whose Lua transitions span a record, its audit and two indexes, works under the tagged prefix', async () => {
    const prefix = keyPrefixFor(cluster.target, `test-cluster-${randomUUID().slice(0, 8)}`);
    const waivers = createWaiverStore(redis, prefix, () => `w${randomUUID().slice(0, 7)}`);
    const now = Date.now();
    const waiver = await waivers.request({ cluster: 'demo', code: 'K8S004', resource: 'deployment/store/payments', reason: 'agreed for this window', expiresAt: now + 86_400_000, requestedBy: 'U0REQ' }, now);
    expect((await waivers.approve(waiver.id, 'U0APP', now + 1)).outcome).toBe('done');
    expect((await waivers.list('demo')).map((w) => [w.id, w.state])).toEqual([[waiver.id, 'active']]);
    expect((await waivers.audit(waiver.id)).map((e) => e.action)).toEqual(['requested', 'approved']);
    await deleteMatching(redis, `${prefix}:*`);
  });

  it('removing a prefix\'s keys visits every master, so none is left on any of them', async () => {
    // Keys without a hash tag spread over the three masters' slots; the demo's and playground's clean-up must find them all.
    const prefix = `test-cluster-scan-${randomUUID().slice(0, 8)}`;
    const keys = Array.from({ length: 60 }, (_, i) => `${prefix}:key-${i}`);
    for (const key of keys) await redis.set(key, '1', 'EX', 600);
    const holders = new Set(await Promise.all(keys.map((key) => cluster.masterOf(key))));
    expect(holders.size).toBe(3);
    expect(await deleteKeysUnder(cluster.target, prefix)).toBe(60);
    expect(await Promise.all(keys.map((key) => redis.exists(key)))).toEqual(keys.map(() => 0));
    expect(await deleteMatching(redis, `${prefix}:*`)).toBe(0);
  });
});
