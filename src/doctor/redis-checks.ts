import { connectRedis, type RedisClient, type RedisTarget } from '../store/redis-connection.js';
import semver from 'semver';
import { failed, notChecked, passed, type DoctorCheck } from '../ports/doctor-check.js';

/**
 * doctor's Redis checks, which start-up shares: reachable (and AUTH accepted), maxmemory-policy noeviction (BullMQ
 * loses jobs to eviction otherwise: https://docs.bullmq.io/guide/going-to-production#max-memory-policy), appendonly
 * (a warning: without AOF a Redis restart loses the queue), and a version BullMQ runs on (its RedisConnection
 * refuses below 5.0.0 and recommends 6.2.0). ElastiCache refuses CONFIG: those settings live in its parameter group.
 */
export const BULLMQ_MINIMUM_REDIS = '5.0.0';
export const BULLMQ_RECOMMENDED_REDIS = '6.2.0';

/** Where REDIS_URL (or REDIS_CLUSTER_NODES) points, without its password. */
export function redisTarget(where: string | RedisTarget): string {
  if (typeof where !== 'string' && where.cluster) return `the Redis Cluster seeded by ${where.cluster.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
  const url = typeof where === 'string' ? where : where.url;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'REDIS_URL';
  }
}

/** What ioredis says of a reply that is not RESP; the group is the reply's first character. */
const FOREIGN_REPLY = /Unknown RESP type \d+ "(.)"|Protocol error, got "(.)"/;

/** The sentence for a Redis that cannot be used, from the connection error. */
export function redisUnusable(url: string | RedisTarget, error: unknown): DoctorCheck {
  const message = (error as Error | null)?.message ?? String(error);
  const target = redisTarget(url);
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message)) {
    return failed('redis', 'redis.reachable', `Redis at ${target} refused AUTH (${message.split('\n')[0]})`, 'put the right password in REDIS_URL: rediss://:PASSWORD@host:6379 (ElastiCache: the AUTH token), or redis://user:PASSWORD@host:6379 with an ACL user');
  }
  // ioredis's RESP decoder throws "Unknown RESP type 72 "H"" when the first byte of a reply is none of RESP's type
  // bytes (https://redis.io/docs/latest/develop/reference/protocol-spec/#resp-protocol-description): something else
  // listens there — "H" is an HTTP server's "HTTP/1.1 400 Bad Request" to the PING.
  const foreign = FOREIGN_REPLY.exec(message);
  if (foreign) {
    const first = foreign[1] ?? foreign[2];
    return failed('redis', 'redis.reachable', `what answers at ${target} is not Redis (its reply begins with ${JSON.stringify(first)}${first === 'H' ? ', as an HTTP server\'s does' : ''})`, 'point REDIS_URL at the port Redis listens on (6379 unless it was changed), not at another service');
  }
  const code = (error as { code?: string } | null)?.code;
  return failed('redis', 'redis.reachable', `Redis at ${target} is unreachable (${code ?? message.split('\n')[0]})`, `start Redis there or set REDIS_URL to where it runs (rediss:// for TLS, as ElastiCache with in-transit encryption needs)`);
}

/** One connection attempt, no retries: a connected client, or the error that stopped it. */
export async function connectOnce(url: string | RedisTarget, timeoutMs = 5_000): Promise<RedisClient> {
  const redis = connectRedis(typeof url === 'string' ? { url } : url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // connect() rejects with "Connection is closed."; the cause (ECONNREFUSED, a TLS or AUTH error) comes as 'error'.
  // Another service on the port (an HTTP server answering the PING with 400 and closing) gives both a reply ioredis
  // cannot decode and an EPIPE on its next write, in either order: the reply is the one that says what is wrong.
  const causes: unknown[] = [];
  redis.on('error', (error) => void causes.push(error));
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    throw causes.find((cause) => FOREIGN_REPLY.test((cause as Error | null)?.message ?? '')) ?? causes[0] ?? error;
  }
}

async function configValue(redis: RedisClient, name: string): Promise<string | undefined> {
  const answer = (await redis.call('CONFIG', 'GET', name)) as string[];
  return answer[1];
}

export async function redisChecks(url: string | RedisTarget): Promise<DoctorCheck[]> {
  let redis: RedisClient;
  try {
    redis = await connectOnce(url);
  } catch (error) {
    return [redisUnusable(url, error)];
  }
  const target = redisTarget(url);
  const checks: DoctorCheck[] = [passed('redis', 'redis.reachable', `Redis at ${target} answers`)];
  try {
    try {
      const policy = await configValue(redis, 'maxmemory-policy');
      checks.push(policy === 'noeviction'
        ? passed('redis', 'redis.maxmemory-policy', 'maxmemory-policy is noeviction')
        : failed('redis', 'redis.maxmemory-policy', `maxmemory-policy is ${policy}: Redis may evict BullMQ's jobs and locks`, 'set maxmemory-policy noeviction (redis.conf, CONFIG SET maxmemory-policy noeviction, or the ElastiCache parameter group)', ['maxmemory-policy noeviction']));
      const aof = await configValue(redis, 'appendonly');
      checks.push(aof === 'yes'
        ? passed('redis', 'redis.appendonly', 'appendonly is yes: the queue survives a restart')
        : { ...passed('redis', 'redis.appendonly', `warning: appendonly is ${aof}: a Redis restart loses the queue, gates and outbox`), fix: 'set appendonly yes (deploy/components/redis does)' });
    } catch (error) {
      checks.push(notChecked('redis', 'redis.config', `CONFIG GET is refused here (${(error as Error).message.split('\n')[0]}), as on ElastiCache: check in its parameter group that maxmemory-policy is noeviction, and that backups or Multi-AZ cover restarts (appendonly)`));
    }
    const info = String(await redis.info('server'));
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? /valkey_version:(\S+)/.exec(info)?.[1];
    const coerced = version ? semver.coerce(version)?.version : undefined;
    if (!coerced) checks.push(notChecked('redis', 'redis.version', 'INFO server names no redis_version'));
    else if (semver.lt(coerced, BULLMQ_MINIMUM_REDIS)) checks.push(failed('redis', 'redis.version', `Redis ${version} is older than BullMQ's minimum ${BULLMQ_MINIMUM_REDIS}`, `upgrade Redis to ${BULLMQ_RECOMMENDED_REDIS} or later`));
    else checks.push(passed('redis', 'redis.version', `Redis ${version} (BullMQ needs ${BULLMQ_MINIMUM_REDIS}, recommends ${BULLMQ_RECOMMENDED_REDIS})`));
  } finally {
    redis.disconnect();
  }
  return checks;
}
