import { Redis } from 'ioredis';
import { createRedisAuditLog } from '../../src/audit/redis-audit-log.js';
import type { AuditLog } from '../../src/ports/audit-port.js';
import { systemClock, type Clock } from '../../src/ports/clock.js';
import { deleteKeys, freshPrefix, redisUrl } from './redis-url.js';

/** The real Redis audit trail under a fresh prefix, for tests that build BotDeps by hand. */
export interface TestAuditLog {
  audit: AuditLog;
  close(): Promise<void>;
}

export function createTestAuditLog(clock: Clock = systemClock): TestAuditLog {
  const prefix = freshPrefix('audit');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  return {
    audit: createRedisAuditLog(redis, { prefix, clock }),
    async close() {
      await deleteKeys(`${prefix}:*`);
      await redis.quit();
    },
  };
}
