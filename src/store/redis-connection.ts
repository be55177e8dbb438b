/**
 * The one place the bot makes Redis connections: a single node (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES,
 * which wins), with TLS and AUTH applied to every node (REDIS_TLS, REDIS_PASSWORD, or the rediss:// and
 * user:password@ URL forms). Everything that talks to Redis (ioredis clients, BullMQ queues, workers, flows) gets its
 * connection from here, so a cluster deployment is one setting, not a hunt through the code.
 */

import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';

export interface RedisNode {
  host: string;
  port: number;
}

/** Where Redis is. `url` alone: one node, exactly as before. `cluster`: the seed nodes of a Redis Cluster. */
export interface RedisTarget {
  url: string;
  cluster?: { nodes: RedisNode[] };
  /** TLS to every node (REDIS_TLS=true or a rediss:// seed); for a single node the rediss:// URL already says so. */
  tls?: boolean;
  username?: string;
  password?: string;
}

/** The environment's say on Redis (EnvConfig's REDIS_* fields). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: Array<RedisNode & { tls?: boolean; username?: string; password?: string }>;
  REDIS_TLS?: boolean;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
}

/**
 * Where the environment points: REDIS_CLUSTER_NODES wins over REDIS_URL. TLS and AUTH apply to every node: from
 * REDIS_TLS / REDIS_USERNAME / REDIS_PASSWORD, else from the first seed URL that carries them (a cluster has one
 * AUTH token and one TLS setting for all its nodes, and ioredis opens the nodes it discovers with the same options).
 * With neither the variables nor the URL forms, a single node is opened exactly as before.
 */
export function redisTargetOf(env: RedisEnv): RedisTarget {
  const seeds = env.REDIS_CLUSTER_NODES ?? [];
  const fromSeeds = <K extends 'username' | 'password'>(key: K) => seeds.find((seed) => seed[key] !== undefined)?.[key];
  const tls = env.REDIS_TLS ?? (seeds.some((seed) => seed.tls) || undefined);
  const username = env.REDIS_USERNAME ?? fromSeeds('username');
  const password = env.REDIS_PASSWORD ?? fromSeeds('password');
  return {
    url: env.REDIS_URL,
    ...(seeds.length > 0 ? { cluster: { nodes: seeds.map(({ host, port }) => ({ host, port })) } } : {}),
    ...(tls !== undefined ? { tls } : {}),
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}

/** Either kind of ioredis client: the stores use only commands both have. */
export type RedisClient = Redis | Cluster;

/**
 * The key prefix everything is kept under. On a cluster it is wrapped in a hash tag (`{eks-upgrade}`), BullMQ's
 * documented way to keep a queue's keys in one slot (https://docs.bullmq.io/patterns/redis-cluster). The bot's own
 * keys (gates, locks, timelines, waivers, audit, outbox) and every queue share that one tag: a rollout's flow adds
 * its parent and child jobs in one Lua script, and the bot's MULTI/EXEC and scripts touch keys of several of them,
 * so one slot is what lets them all run without CROSSSLOT. Without a cluster the prefix is returned unchanged, so a
 * running deployment's jobs, gates and audit trail stay where they are.
 */
export function keyPrefixFor(target: RedisTarget, prefix: string): string {
  if (!target.cluster || /\{[^}]+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}

function authOptions(target: RedisTarget): RedisOptions {
  return {
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
}

function clusterOptions(target: RedisTarget, options: RedisOptions): ClusterOptions {
  return {
    redisOptions: { ...options, ...authOptions(target) },
    // ElastiCache with in-transit encryption: the certificate names the configuration endpoint, so the client must
    // connect to the names the cluster announces rather than to their resolved addresses
    // (https://github.com/redis/ioredis#special-note-aws-elasticache-clusters-with-tls).
    ...(target.tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
    // A failover moves slots; ioredis follows MOVED/ASK on its own, and a command refused while a replica takes over
    // (CLUSTERDOWN, a closed socket, TRYAGAIN) is retried after a delay, up to maxRedirections times. A connection
    // that waits out an outage on one node (maxRetriesPerRequest: null: workers, the outbox) waits out a failover
    // too: 240 tries of 500 ms, two minutes (ioredis's default 16 gave up on a killed master before its replica took
    // over: test/e2e/redis-cluster-failover.test.ts). A fail-fast connection (people are waiting on its answer)
    // keeps ioredis's 16 tries, a few seconds.
    retryDelayOnFailover: 500,
    retryDelayOnClusterDown: 500,
    retryDelayOnTryAgain: 500,
    ...(options.maxRetriesPerRequest === null || options.maxRetriesPerRequest === undefined ? { maxRedirections: 240 } : {}),
    ...(options.lazyConnect ? { lazyConnect: true } : {}),
    ...(options.enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
    ...(options.retryStrategy ? { clusterRetryStrategy: () => null } : {}),
  };
}

/** An ioredis client to the target with these options (on a cluster, for every node). */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  if (target.cluster) return new Cluster(target.cluster.nodes, clusterOptions(target, options));
  const auth = authOptions(target);
  return Object.keys(auth).length > 0 ? new Redis(target.url, { ...options, ...auth }) : new Redis(target.url, options);
}

/** A BullMQ connection and how to let it go once the queue or worker that uses it has closed. */
export interface BullConnection {
  connection: ConnectionOptions;
  release(): Promise<void>;
}

/**
 * The `connection` for a BullMQ Queue, Worker or FlowProducer. A single node keeps today's `{ url, …options }`, which
 * BullMQ opens and closes itself. BullMQ cannot open a cluster from options, so on a cluster it gets an ioredis
 * Cluster, which it treats as shared and never closes: `release()` closes it after the BullMQ object has.
 */
export function bullConnection(target: RedisTarget, options: RedisOptions = {}): BullConnection {
  if (!target.cluster) {
    const auth = authOptions(target);
    return { connection: { url: target.url, ...options, ...auth } as ConnectionOptions, release: async () => undefined };
  }
  const cluster = new Cluster(target.cluster.nodes, clusterOptions(target, options));
  return {
    connection: cluster as unknown as ConnectionOptions,
    // QUIT to every node, bounded: a node that died meanwhile must not hold a shutdown; then the sockets go.
    release: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([cluster.quit().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
      clearTimeout(timer);
      cluster.disconnect();
    },
  };
}

/** The nodes whose keys a SCAN must visit: every master of a cluster, or the one node. */
export function scanNodes(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** Every key matching `pattern`, on every master, handed to `each` a page at a time. */
export async function scanEveryMaster(redis: RedisClient, pattern: string, each: (keys: string[]) => Promise<void>): Promise<void> {
  // A cluster client knows its masters only once it has read the slot map: one command makes it connect.
  if (redis instanceof Cluster) await redis.ping();
  for (const node of scanNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await each(keys);
    } while (cursor !== '0');
  }
}

/**
 * Removes keys that may sit in different slots. On one node a single UNLINK; on a cluster one UNLINK per key, as a
 * multi-key UNLINK across slots is refused with CROSSSLOT even when one master holds them all.
 */
export async function unlinkKeys(redis: RedisClient, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!(redis instanceof Cluster)) return redis.unlink(...keys);
  const counts = await Promise.all(keys.map((key) => redis.unlink(key)));
  return counts.reduce((sum, n) => sum + n, 0);
}

/** Deletes every key matching `pattern` on every master; how many went. */
export async function deleteMatching(redis: RedisClient, pattern: string): Promise<number> {
  let removed = 0;
  await scanEveryMaster(redis, pattern, async (keys) => void (removed += await unlinkKeys(redis, keys)));
  return removed;
}
