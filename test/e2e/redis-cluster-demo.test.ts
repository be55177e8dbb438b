import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, scanEveryMaster, type RedisClient } from '../../src/store/redis-connection.js';
import { startTsx } from '../support/spawn-tsx.js';
import { haveRedisClusterTools, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';

/**
 * `npm run demo` and `npm run playground` pointed at a Redis Cluster (REDIS_CLUSTER_NODES): they use it as it is,
 * the bot keeps its keys under the hash-tagged prefix there, and Ctrl-C leaves no key on any master.
 */
describe.skipIf(!haveRedisClusterTools() && !process.env.CI)('the demo and the playground on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let redis: RedisClient;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    redis = connectRedis(cluster.target, { maxRetriesPerRequest: 3 });
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await redis?.quit().catch(() => undefined);
    await cluster?.stop();
  });

  async function keysUnder(pattern: string): Promise<string[]> {
    const found: string[] = [];
    await scanEveryMaster(redis, pattern, async (keys) => void found.push(...keys));
    return found;
  }

  async function interruptAndScan(args: string[], exitCode: number): Promise<void> {
    // REDIS_URL points nowhere: the cluster's seeds are all the demo may use.
    const { child, output, exited } = startTsx(args, { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.seeds, LOG_LEVEL: 'silent', DEMO_SPEED: '30', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, children);
    await expect.poll(() => /keys under ([\w-]+):/.exec(output())?.[1], { timeout: 120_000, interval: 100 }).toBeTruthy();
    const prefix = /keys under ([\w-]+):/.exec(output())![1];
    await expect.poll(async () => (await keysUnder(`{${prefix}}:*`)).length, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
    expect(await keysUnder(`${prefix}:*`), 'no key under the untagged prefix').toEqual([]);
    child.kill('SIGINT');
    expect(await exited, output()).toBe(exitCode);
    expect(await keysUnder(`*${prefix}*`)).toEqual([]);
  }

  it('npm run demo keeps its keys under {prefix} and removes them from every master', () => interruptAndScan(['src/demo/run-demo.ts'], 130), 180_000);
  it('npm run playground does the same', () => interruptAndScan(['src/playground/run-playground.ts', '--port', '0'], 0), 180_000);
});
