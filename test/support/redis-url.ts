import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis every integration test uses (.ci/run exports REDIS_URL when it had to start one). */
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key/queue prefix per test, so tests never see each other's jobs. */
export function freshPrefix(topic: string): string {
  return `test-${topic}-${randomUUID().slice(0, 8)}`;
}

/** Removes a test's Redis keys (queue, engine state, outbox) so runs do not pile up in the shared Redis. */
export async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
