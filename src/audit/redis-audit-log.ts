import type { RedisClient } from '../store/redis-connection.js';
import type { Clock } from '../ports/clock.js';
import type { AuditEntry, AuditLog } from '../ports/audit-port.js';

/**
 * AuditLog on one Redis stream per cluster (`<prefix>:audit:<cluster>`). Entry ids carry the bot's clock
 * (`<ms>-*`), so retention (XADD MINID) and reading agree with the clock the rest of the bot runs on — in tests, the
 * simulator's. Redis rejects an id older than the stream's newest (a clock that went backwards, another process's
 * clock ahead): the entry is then written with Redis's own time instead of being lost.
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;

export function createRedisAuditLog(redis: RedisClient, opts: { prefix: string; clock: Clock; retentionDays?: number }): AuditLog {
  const key = (cluster: string) => `${opts.prefix}:audit:${cluster}`;
  const retentionMs = (opts.retentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * DAY_MS;
  return {
    async record(entry) {
      const fields = ['entry', JSON.stringify(entry)];
      const minId = String(Math.max(0, opts.clock.now() - retentionMs));
      try {
        await redis.xadd(key(entry.cluster), 'MINID', '~', minId, `${Math.floor(entry.at)}-*`, ...fields);
      } catch (error) {
        if (!/equal or smaller than the target stream top item/i.test((error as Error).message)) throw error;
        await redis.xadd(key(entry.cluster), 'MINID', '~', minId, '*', ...fields);
      }
    },
    async read(cluster, options = {}) {
      const limit = Math.min(Math.max(options.limit ?? 50, 1), 1_000);
      // Entries older than the retention may linger until the next write trims them (MINID ~ trims lazily).
      const oldest = Math.max(0, opts.clock.now() - retentionMs);
      const rows = await redis.xrevrange(key(cluster), '+', String(oldest), 'COUNT', limit);
      return rows.map(([, fields]) => JSON.parse(fields[fields.indexOf('entry') + 1]) as AuditEntry);
    },
  };
}
