/**
 * Every Redis connection and BullMQ object of one process, in one owner. An entry point (src/start-bot.ts, the CLI,
 * bench, a test) builds the kit with `createQueueKit` and passes it to the features in jobs/ and src/, which ask it
 * for the queue, worker, flow producer or ioredis client they need; nothing else opens a connection
 * (`npm run check:imports` refuses a `new Queue(` or `new Redis(` elsewhere). A feature still closes its own workers
 * and queues in its `close()`, in the order its shutdown needs (a worker finishes its current step first); the entry
 * point closes the kit last, which closes whatever is still open, workers before queues before connections.
 */

import { FlowProducer, Queue, Worker, type Processor, type QueueOptions, type WorkerOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { bullConnection, connectRedis, type BullConnection, type RedisClient, type RedisTarget } from './redis-connection.js';

type BullObject = Queue | Worker | FlowProducer;

export interface QueueKit {
  /** Where Redis is. */
  readonly target: RedisTarget;
  /** The prefix every queue of this kit lives under (and the feature's own keys, by convention). */
  readonly prefix: string;
  /** An ioredis client with these options (errors are the caller's to listen to). */
  redis(options: RedisOptions): RedisClient;
  queue<T>(name: string, redis: RedisOptions, options?: Omit<QueueOptions, 'connection' | 'prefix'>): Queue<T>;
  worker<T, R = unknown>(name: string, processor: Processor<T, R>, redis: RedisOptions, options?: Omit<WorkerOptions, 'connection' | 'prefix'>): Worker<T, R>;
  flowProducer(redis: RedisOptions): FlowProducer;
  /**
   * A kit under another prefix whose objects are closed with it (a rehearsal's own engine): closing it lets them
   * go, and the parent no longer holds them; closing the parent closes it too.
   */
  scope(prefix: string): QueueKit;
  /** Closes what is still open: workers, then queues and flow producers, then their connections and the clients. */
  close(): Promise<void>;
}

async function closeBull(object: BullObject): Promise<void> {
  // Already closing (the feature closed it in its own order): wait for that, never close twice.
  await (object.closing ?? object.close()).catch(() => undefined);
}

/**
 * QUIT (or, when Redis is gone, a plain disconnect), resolved once the socket has closed: a caller that closed the
 * kit may count on its connections being gone. Bounded, so a socket that never says so cannot hold a shutdown.
 */
async function quit(redis: RedisClient): Promise<void> {
  if (redis.status === 'end') return;
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    redis.once('end', () => resolve());
    timer = setTimeout(() => {
      redis.disconnect();
      resolve();
    }, 2_000);
  });
  // Not awaited: with Redis gone, a client that waits out outages would hold QUIT in its offline queue for ever.
  redis.quit().catch(() => redis.disconnect());
  await ended;
  clearTimeout(timer);
}

export function createQueueKit(target: RedisTarget, prefix: string, onClosed?: () => void): QueueKit {
  const workers = new Set<Worker>();
  const others = new Set<Queue | FlowProducer>();
  const connections: BullConnection[] = [];
  const clients: RedisClient[] = [];
  const scopes = new Set<QueueKit>();
  const bull = (options: RedisOptions) => {
    const connection = bullConnection(target, options);
    connections.push(connection);
    return connection.connection;
  };
  const kit: QueueKit = {
    target,
    prefix,
    redis(options) {
      const client = connectRedis(target, options);
      clients.push(client);
      return client;
    },
    queue<T>(name: string, redis: RedisOptions, options = {}) {
      const queue = new Queue<T>(name, { ...options, connection: bull(redis), prefix });
      others.add(queue as Queue);
      return queue;
    },
    worker<T, R>(name: string, processor: Processor<T, R>, redis: RedisOptions, options = {}) {
      const worker = new Worker<T, R>(name, processor, { ...options, connection: bull(redis), prefix });
      workers.add(worker as unknown as Worker);
      return worker;
    },
    flowProducer(redis) {
      const flows = new FlowProducer({ connection: bull(redis), prefix });
      others.add(flows);
      return flows;
    },
    scope(childPrefix) {
      const child = createQueueKit(target, childPrefix, () => scopes.delete(child));
      scopes.add(child);
      return child;
    },
    async close() {
      for (const child of [...scopes]) await child.close();
      await Promise.all([...workers].map(closeBull));
      await Promise.all([...others].map(closeBull));
      await Promise.all(connections.splice(0).map((connection) => connection.release()));
      await Promise.all(clients.splice(0).map(quit));
      workers.clear();
      others.clear();
      onClosed?.();
    },
  };
  return kit;
}
