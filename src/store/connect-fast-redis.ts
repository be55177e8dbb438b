import { connectRedis, type RedisClient, type RedisTarget } from './redis-connection.js';

/**
 * For the terminal CLI: a Redis connection that gives up fast. Resolves with the client when Redis answers a PING
 * within `timeoutMs`, else without one (the caller says what it does without Redis), never hanging on a Redis that
 * is not there.
 */
export async function connectFastRedis(where: string | RedisTarget, timeoutMs = 1_500): Promise<{ redis?: RedisClient; close(): Promise<void> }> {
  const redis = connectRedis(typeof where === 'string' ? { url: where } : where, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on('error', () => undefined); // reported through connect()'s rejection; ioredis would log it otherwise
  const close = async () => {
    redis.disconnect();
  };
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    await close();
    return { close };
  }
  return { redis, close };
}
