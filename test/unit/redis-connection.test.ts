import { describe, expect, it } from 'vitest';
import { cliRedis } from '../../src/cli/cli-redis.js';
import { parseEnv } from '../../src/config/env-config.js';
import { engineKeys } from '../../src/store/engine-keys.js';
import { bullConnection, keyPrefixFor, redisTargetOf } from '../../src/store/redis-connection.js';
import { waiverKeys } from '../../src/waivers/store/redis-waiver-store.js';

const base = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'a-signing-secret' };

describe('where the bot finds Redis', () => {
  it('on one node, the prefix and every key stay exactly as before, so a running deployment keeps its jobs, gates and audit', () => {
    const target = redisTargetOf(parseEnv({ ...base, REDIS_URL: 'redis://redis:6379', QUEUE_PREFIX: 'eks-upgrade' }));
    expect(target).toEqual({ url: 'redis://redis:6379' });
    const prefix = keyPrefixFor(target, 'eks-upgrade');
    expect(prefix).toBe('eks-upgrade');
    expect(engineKeys(prefix).gate('j1', 'g1')).toBe('eks-upgrade:upgrade-engine:job:j1:gate:g1');
    expect(engineKeys(prefix).clusterLock('prod')).toBe('eks-upgrade:upgrade-engine:lock:prod');
    expect(waiverKeys(prefix).byCluster('prod')).toBe('eks-upgrade:waivers:prod');
    // BullMQ opens and closes a single node itself from the same options as before.
    expect(bullConnection(target, { maxRetriesPerRequest: null }).connection).toEqual({ url: 'redis://redis:6379', maxRetriesPerRequest: null });
  });

  it('REDIS_CLUSTER_NODES wins over REDIS_URL and hash-tags the prefix, so each queue\'s keys share a slot', () => {
    const target = redisTargetOf(parseEnv({ ...base, REDIS_URL: 'redis://redis:6379', REDIS_CLUSTER_NODES: 'node-a:7000, node-b:7001,[::1]:7002' }));
    expect(target.cluster?.nodes).toEqual([{ host: 'node-a', port: 7000 }, { host: 'node-b', port: 7001 }, { host: '::1', port: 7002 }]);
    expect(keyPrefixFor(target, 'eks-upgrade')).toBe('{eks-upgrade}');
    expect(engineKeys(keyPrefixFor(target, 'eks-upgrade')).gate('j1', 'g1')).toBe('{eks-upgrade}:upgrade-engine:job:j1:gate:g1');
    // A prefix that already carries a tag is the operator's choice and is kept.
    expect(keyPrefixFor(target, '{ops}-eks')).toBe('{ops}-eks');
  });

  it('TLS and AUTH for every node come from REDIS_TLS / REDIS_PASSWORD or from the URL forms of the seeds', () => {
    expect(redisTargetOf(parseEnv({ ...base, REDIS_CLUSTER_NODES: 'a:6379,b:6379', REDIS_TLS: 'true', REDIS_PASSWORD: 's3cret' }))).toMatchObject({ tls: true, password: 's3cret' });
    expect(redisTargetOf(parseEnv({ ...base, REDIS_CLUSTER_NODES: 'rediss://bot:tok%40en@a.cache.amazonaws.com:6379,b.cache.amazonaws.com:6379' }))).toMatchObject({
      tls: true,
      username: 'bot',
      password: 'tok@en',
      cluster: { nodes: [{ host: 'a.cache.amazonaws.com', port: 6379 }, { host: 'b.cache.amazonaws.com', port: 6379 }] },
    });
    // On one node, REDIS_PASSWORD is sent as AUTH with the URL's host.
    expect(bullConnection(redisTargetOf(parseEnv({ ...base, REDIS_PASSWORD: 'p' })), {}).connection).toEqual({ url: 'redis://127.0.0.1:6379', password: 'p' });
  });

  it('the terminal CLI (audit, plan\'s waivers, rehearse) reads the bot\'s variables the same way, so it looks where the bot writes', () => {
    const vars = { REDIS_CLUSTER_NODES: 'a:6379,b:6379', REDIS_PASSWORD: 'p', QUEUE_PREFIX: 'ops' };
    const bot = redisTargetOf(parseEnv({ ...base, ...vars }));
    expect(cliRedis(vars)).toEqual({ target: bot, prefix: '{ops}' });
    expect(cliRedis({})).toEqual({ target: { url: 'redis://127.0.0.1:6379' }, prefix: 'eks-upgrade' });
    expect(() => cliRedis({ REDIS_CLUSTER_NODES: 'a' })).toThrow(/environment: REDIS_CLUSTER_NODES must be a comma-separated list/);
  });

  it('names a malformed REDIS_CLUSTER_NODES or REDIS_TLS in one sentence and never echoes a seed (it may carry the password)', () => {
    expect(() => parseEnv({ ...base, REDIS_CLUSTER_NODES: 'rediss://:hunter2@a:6379,b' })).toThrow(
      'environment: REDIS_CLUSTER_NODES must be a comma-separated list of seed nodes like host1:6379,host2:6379 (or rediss://:password@host:6379); 1 of its 2 entries is not host:port',
    );
    expect(() => parseEnv({ ...base, REDIS_CLUSTER_NODES: 'rediss://:hunter2@a:6379,b' })).not.toThrow(/hunter2/);
    expect(() => parseEnv({ ...base, REDIS_TLS: 'yes' })).toThrow('environment: REDIS_TLS must be true or false');
  });
});
