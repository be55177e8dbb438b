import { randomUUID } from 'node:crypto';

/** The Redis every integration test uses (.ci/run exports REDIS_URL when it had to start one). */
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key/queue prefix per test, so tests never see each other's jobs. */
export function freshPrefix(topic: string): string {
  return `test-${topic}-${randomUUID().slice(0, 8)}`;
}
