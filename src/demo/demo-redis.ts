import { parseRedisEnv } from '../config/env-config.js';
import { keyPrefixFor, redisTargetOf } from '../store/redis-connection.js';
import { deleteKeysUnder, ensureRedis, type RedisHandle } from './ensure-redis.js';

/** The Redis variables the demo and the playground hand on to the bot they start, as the operator set them. */
const PASSED_ON = ['REDIS_CLUSTER_NODES', 'REDIS_TLS', 'REDIS_USERNAME', 'REDIS_PASSWORD'] as const;

export interface DemoRedis extends RedisHandle {
  /** REDIS_URL and, on a cluster, the cluster's variables, for the bot's environment. */
  env: Record<string, string>;
  /** Removes every key the bot kept under `prefix` (its QUEUE_PREFIX), on every master of a cluster. */
  removeKeys(prefix: string): Promise<number>;
}

/**
 * The demo's and the playground's Redis: the Redis Cluster REDIS_CLUSTER_NODES names, used as it is (nothing is
 * started, and the bot keeps its keys under the hash-tagged prefix there); otherwise ensureRedis (REDIS_URL when it
 * answers, else a throwaway redis-server).
 */
export async function demoRedis(env: NodeJS.ProcessEnv = process.env, url?: string): Promise<DemoRedis> {
  if (env.REDIS_CLUSTER_NODES) {
    const target = redisTargetOf(parseRedisEnv(env));
    const passed = Object.fromEntries(PASSED_ON.flatMap((name) => (env[name] ? [[name, env[name]!]] : [])));
    return {
      url: target.url,
      started: false,
      stop: async () => undefined,
      env: { REDIS_URL: target.url, ...passed },
      removeKeys: (prefix) => deleteKeysUnder(target, keyPrefixFor(target, prefix)),
    };
  }
  const handle = await ensureRedis(url ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  return { ...handle, env: { REDIS_URL: handle.url }, removeKeys: (prefix) => deleteKeysUnder(handle.url, prefix) };
}
