import { afterEach, describe, expect, it } from 'vitest';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * The QueueKit an entry point builds (src/store/queue-kit.ts) owns the process's Redis connections and BullMQ
 * objects, against the real Redis: closing it lets a running job finish before any connection goes, and a scope
 * (a rehearsal's engine) lets its own objects go without touching the parent's.
 */
const kits: QueueKit[] = [];
const prefixes: string[] = [];
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.close();
  for (const prefix of prefixes.splice(0)) await deleteKeys(`${prefix}:*`);
});

function kitFor(topic: string): QueueKit {
  const prefix = freshPrefix(topic);
  prefixes.push(prefix);
  const kit = createQueueKit({ url: redisUrl }, prefix);
  kits.push(kit);
  return kit;
}

describe('a QueueKit', () => {
  it('closes its workers first: a job running at shutdown finishes before any connection of the kit closes', async () => {
    const kit = kitFor('kit-order');
    const order: string[] = [];
    const redis = kit.redis({ maxRetriesPerRequest: null });
    redis.on('end', () => order.push('redis closed'));
    await redis.ping();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const worker = kit.worker<{ n: number }>('kit-order', async () => {
      started();
      await gate;
      order.push('job finished');
    }, { maxRetriesPerRequest: null });
    worker.on('completed', () => order.push('job completed'));
    // The job is let go only once shutdown has begun: a kit that closed connections first would close them under it.
    worker.on('closing', () => finish());
    const queue = kit.queue<{ n: number }>('kit-order', { maxRetriesPerRequest: 1 });
    await queue.add('one', { n: 1 });
    await running;
    await kit.close();
    expect(order).toEqual(['job finished', 'job completed', 'redis closed']);
    expect(redis.status).toBe('end');
    expect(worker.isRunning()).toBe(false);
  });

  it('keeps a scope apart: its queue lives under its own prefix, and closing it closes only its own objects', async () => {
    const kit = kitFor('kit-parent');
    const parentRedis = kit.redis({ maxRetriesPerRequest: 1 });
    await parentRedis.ping();
    const childPrefix = freshPrefix('kit-child');
    prefixes.push(childPrefix);
    const child = kit.scope(childPrefix);
    const childRedis = child.redis({ maxRetriesPerRequest: 1 });
    const childQueue = child.queue<{ n: number }>('rehearse', { maxRetriesPerRequest: 1 });
    await childQueue.add('one', { n: 1 });
    expect((await parentRedis.keys(`${childPrefix}:rehearse:*`)).length).toBeGreaterThan(0);
    // Closed by its feature first, as jobs/ does: the scope does not close it twice.
    await childQueue.close();
    await child.close();
    expect(childRedis.status).toBe('end');
    expect(parentRedis.status).toBe('ready');
    // A scope nobody closed goes with its parent.
    const forgotten = kit.scope(childPrefix).redis({ maxRetriesPerRequest: 1 });
    await forgotten.ping();
    await kit.close();
    expect(forgotten.status).toBe('end');
    expect(parentRedis.status).toBe('end');
  });
});
