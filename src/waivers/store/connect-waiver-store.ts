import type { RedisTarget } from '../../store/redis-connection.js';
import { connectFastRedis } from '../../store/connect-fast-redis.js';
import type { WaiverStore } from '../model/waiver-store.js';
import { createWaiverStore } from './redis-waiver-store.js';

/**
 * For the terminal CLI: a Redis connection that gives up fast. The CLI counts Slack waivers when REDIS_URL answers
 * within `timeoutMs`, and otherwise plans on clusters.yaml waivers alone (read-waivers.ts says so) instead of
 * hanging on a Redis that is not there.
 */
export interface WaiverConnection {
  store?: WaiverStore;
  close(): Promise<void>;
}

export async function connectWaiverStore(where: string | RedisTarget, prefix: string, timeoutMs = 1_500): Promise<WaiverConnection> {
  const { redis, close } = await connectFastRedis(where, timeoutMs);
  if (!redis) return { close };
  // Read-only use: ids are never minted by the CLI.
  return { store: createWaiverStore(redis, prefix, () => { throw new Error('the CLI does not create waivers'); }), close };
}
