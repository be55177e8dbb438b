import type { RedisClient } from './redis-connection.js';
import type { EngineKeys } from './engine-keys.js';
import type { TimelineEvent } from '../ports/timeline-event.js';
import type { TimelineEntry, TimelineLog } from '../ports/timeline-log.js';

/**
 * The job's timeline, append-only in Redis: the record the Markdown export is made from, independent of Slack
 * (which may be slow or down). Appends are keyed like the thread posts, so a step re-run after a crash that emits
 * the same event key does not append it twice.
 */

// KEYS[1] list, KEYS[2] key set; ARGV key, entry JSON, ttl seconds.
const APPEND = `
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`;

export function createTimelineLog(redis: RedisClient, keys: EngineKeys, ttlSeconds = 90 * 24 * 3600): TimelineLog {
  return {
    async append(jobId, key, event) {
      const entry: TimelineEntry = { key, event };
      const added = await redis.eval(APPEND, 2, keys.timeline(jobId), keys.timelineKeys(jobId), key, JSON.stringify(entry), ttlSeconds);
      return Number(added) === 1;
    },
    async read(jobId, from = 0) {
      const items = await redis.lrange(keys.timeline(jobId), from, -1);
      return items.map((item) => JSON.parse(item) as TimelineEntry);
    },
  };
}

export type { TimelineEntry, TimelineLog };
