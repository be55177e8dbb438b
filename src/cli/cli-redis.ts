import { parseRedisEnv } from '../config/env-config.js';
import { keyPrefixFor, redisTargetOf, type RedisTarget } from '../store/redis-connection.js';

/**
 * Where the terminal CLI finds the bot's Redis and its keys: the bot's own variables (REDIS_URL, or
 * REDIS_CLUSTER_NODES with REDIS_TLS / REDIS_PASSWORD, and QUEUE_PREFIX) read by the bot's rules, so `audit`, the
 * waivers `plan` counts and `rehearse` look where the bot writes (under `{QUEUE_PREFIX}` on a Redis Cluster).
 */
export function cliRedis(env: NodeJS.ProcessEnv): { target: RedisTarget; prefix: string } {
  const parsed = parseRedisEnv(env);
  const target = redisTargetOf(parsed);
  return { target, prefix: keyPrefixFor(target, parsed.QUEUE_PREFIX) };
}
