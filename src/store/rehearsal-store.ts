import type { RedisClient } from './redis-connection.js';
import type { RehearsalRecord, RehearsalStore } from '../ports/rehearsal-store.js';

/** Newest rehearsal per cluster and target, as JSON under `<prefix>:rehearsal:<cluster>:<to>`, kept 14 days. */
const KEEP_SECONDS = 14 * 24 * 3600;

export function createRehearsalStore(redis: RedisClient, prefix: string): RehearsalStore {
  const key = (cluster: string, to: string) => `${prefix}:rehearsal:${cluster}:${to}`;
  return {
    async record(result) {
      await redis.set(key(result.cluster, result.to), JSON.stringify(result), 'EX', KEEP_SECONDS);
    },
    async latest(cluster, to) {
      const raw = await redis.get(key(cluster, to));
      return raw ? (JSON.parse(raw) as RehearsalRecord) : undefined;
    },
  };
}
