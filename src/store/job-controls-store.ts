import type { RedisClient } from './redis-connection.js';
import type { EngineKeys } from './engine-keys.js';
import type { JobControls, JobControlsStore } from '../ports/job-controls.js';

/**
 * Pause / resume / abort requests for a running job. The control side only writes these flags (never job.data,
 * which the processor owns); the processor reads them at safe points between steps and while it waits. Each
 * request is a compare-and-set, so double clicks and two people pressing Pause at once count once.
 */

// KEYS[1] controls hash; ARGV by, at. Returns the new pause sequence, or 0 when already paused.
const PAUSE = `
if redis.call('HGET', KEYS[1], 'paused') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'paused', '1', 'pausedBy', ARGV[1], 'pausedAt', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'pauseSeq', 1)
`;

const RESUME = `
if redis.call('HGET', KEYS[1], 'paused') ~= '1' then return 0 end
redis.call('HSET', KEYS[1], 'paused', '0', 'resumedBy', ARGV[1], 'resumedAt', ARGV[2])
return 1
`;

const ABORT = `
if redis.call('HSETNX', KEYS[1], 'abortBy', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'abortAt', ARGV[2])
return 1
`;

export function createJobControlsStore(redis: RedisClient, keys: EngineKeys): JobControlsStore {
  const ttlSeconds = 30 * 24 * 3600;
  async function run(script: string, jobId: string, by: string, at: number): Promise<number> {
    const key = keys.controls(jobId);
    const result = Number(await redis.eval(script, 1, key, by, String(at)));
    await redis.expire(key, ttlSeconds);
    return result;
  }
  return {
    async read(jobId) {
      const hash = await redis.hgetall(keys.controls(jobId));
      const num = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));
      return {
        paused: hash.paused === '1',
        pauseSeq: num(hash.pauseSeq) ?? 0,
        pausedBy: hash.pausedBy,
        pausedAt: num(hash.pausedAt),
        resumedBy: hash.resumedBy,
        resumedAt: num(hash.resumedAt),
        abort: hash.abortBy ? { by: hash.abortBy, at: num(hash.abortAt) ?? 0 } : undefined,
      };
    },
    pause: async (jobId, by, at) => (await run(PAUSE, jobId, by, at)) > 0,
    resume: async (jobId, by, at) => (await run(RESUME, jobId, by, at)) > 0,
    abort: async (jobId, by, at) => (await run(ABORT, jobId, by, at)) > 0,
  };
}

export type { JobControls, JobControlsStore };
