import { randomUUID } from 'node:crypto';
import { connectRedis, deleteMatching, type RedisTarget } from '../../src/store/redis-connection.js';

/** The Redis every integration test uses (.ci/run exports REDIS_URL when it had to start one). */
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key/queue prefix per test, so tests never see each other's jobs. */
export function freshPrefix(topic: string): string {
  return `test-${topic}-${randomUUID().slice(0, 8)}`;
}

/** Removes a test's Redis keys (queue, engine state, outbox) so runs do not pile up in the shared Redis; on a cluster, from every master. */
export async function deleteKeys(pattern: string, where: RedisTarget = { url: redisUrl }): Promise<void> {
  const redis = connectRedis(where, { maxRetriesPerRequest: null });
  try {
    await deleteMatching(redis, pattern);
  } finally {
    await redis.quit();
  }
}
