import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { connectRedis, deleteMatching, type RedisTarget } from '../store/redis-connection.js';

export interface RedisHandle {
  url: string;
  /** True when we started a throwaway redis-server (and stop() will end it). */
  started: boolean;
  stop(): Promise<void>;
}

export class RedisUnavailableError extends Error {
  readonly code = 'redis_unavailable';
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Ports a child server (redis-server, Prometheus) is told to listen on are picked below Linux's ephemeral range
 * (32768–60999 by default, net.ipv4.ip_local_port_range: https://docs.kernel.org/networking/ip-sysctl.html). A port
 * the kernel handed out and took back is the next one it may hand to any `listen(0)` or outgoing connection in the
 * meantime, so the child could find it taken or, worse, the caller could reach someone else's server there.
 */
const PICK_FROM = 20_000;
const PICK_BELOW = 32_768;

/** A port nothing listens on now, on the loopback interface, outside the range the kernel hands out by itself. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_BELOW - PICK_FROM));
    if (await bindable(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitUntilAnswers(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new RedisUnavailableError(`redis-server exited with code ${child.exitCode} before answering`);
    if (await answers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new RedisUnavailableError(`redis-server did not answer on ${url} within ${timeoutMs} ms`);
}

/**
 * Uses the Redis at `url` when it answers; otherwise starts a throwaway `redis-server` (no persistence, loopback
 * only) on a free port; otherwise says how to get one. BullMQ needs a real Redis: no mock runs its Lua scripts.
 */
export async function ensureRedis(url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<RedisHandle> {
  if (await answers(url)) return { url, started: false, stop: async () => undefined };
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const spawned = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!spawned) {
    throw new RedisUnavailableError(
      `no Redis answers at ${url} and redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL to a running Redis`,
    );
  }
  const ownUrl = `redis://127.0.0.1:${port}`;
  try {
    await waitUntilAnswers(ownUrl, child, 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: ownUrl,
    started: true,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Deletes every key under `prefix:` and under the prefixes of its rehearsals (`prefix-rehearsal-…:`, SCAN + UNLINK a
 * page at a time, on every master of a Redis Cluster): what the demo and the playground left in a Redis they did not
 * start (queues, engine state, outbox, audit, some without expiry). `prefix` is the bot's key prefix as it runs
 * (hash-tagged on a cluster: keyPrefixFor). Best effort: an unreachable Redis is left as it is.
 */
export async function deleteKeysUnder(where: string | RedisTarget, prefix: string): Promise<number> {
  const client = connectRedis(typeof where === 'string' ? { url: where } : where, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  client.on('error', () => undefined);
  let deleted = 0;
  try {
    await client.connect();
    for (const pattern of [`${prefix}:*`, `${prefix}-rehearsal-*`]) deleted += await deleteMatching(client, pattern);
  } catch {
    // Redis gone: nothing more to remove from it.
  } finally {
    client.disconnect();
  }
  return deleted;
}
