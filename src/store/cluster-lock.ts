import type { RedisClient } from './redis-connection.js';
import type { EngineKeys } from './engine-keys.js';
import type { StartIntent, ClusterLock } from '../ports/cluster-lock.js';

/**
 * One upgrade per cluster: a Redis key per cluster holding the owning job id, taken with SET NX so two `start`
 * commands racing each other (even in two bot processes) cannot both win. The job releases it when it ends; a lock
 * whose job is gone or finished (a crash between taking it and ending) is taken over by compare-and-set.
 */

// KEYS[1] lock, KEYS[2] intent; ARGV[1] job id, ARGV[2] intent JSON, ARGV[3] expected holder ('' = none).
const ACQUIRE = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[3] then return current end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'EX', 604800)
return ARGV[1]
`;

// Compare-and-delete: only the owning job may release the lock.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export function createClusterLock(redis: RedisClient, keys: EngineKeys): ClusterLock {
  async function run(intent: StartIntent, expected: string): Promise<string> {
    const result = await redis.eval(
      ACQUIRE,
      2,
      keys.clusterLock(intent.cluster),
      keys.startIntent(intent.jobId),
      intent.jobId,
      JSON.stringify(intent),
      expected,
    );
    return String(result ?? '');
  }
  return {
    acquire: (intent) => run(intent, ''),
    async takeOver(staleJobId, intent) {
      return (await run(intent, staleJobId)) === intent.jobId;
    },
    async release(cluster, jobId) {
      await redis.eval(RELEASE, 1, keys.clusterLock(cluster), jobId);
    },
    async holder(cluster) {
      return (await redis.get(keys.clusterLock(cluster))) ?? undefined;
    },
    async intent(jobId) {
      const text = await redis.get(keys.startIntent(jobId));
      return text ? (JSON.parse(text) as StartIntent) : undefined;
    },
  };
}

export type { StartIntent, ClusterLock };
