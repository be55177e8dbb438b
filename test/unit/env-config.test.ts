import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../src/config/env-config.js';

const base = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'a-signing-secret' };

describe('environment', () => {
  it('applies the documented defaults', () => {
    const env = parseEnv(base);
    expect(env).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379', PORT: 3000, CLUSTERS_FILE: 'clusters.yaml', ROLE: 'all', LOG_LEVEL: 'info' });
  });

  it('names a missing or malformed variable in one line', () => {
    expect(() => parseEnv({ SLACK_SIGNING_SECRET: 'x'.repeat(10) })).toThrow('environment: SLACK_BOT_TOKEN is required');
    expect(() => parseEnv({ ...base, SLACK_BOT_TOKEN: 'abc' })).toThrow('SLACK_BOT_TOKEN must be a bot token starting with xoxb-');
    expect(() => parseEnv({ ...base, ROLE: 'both' })).toThrow(/environment: ROLE/);
    expect(() => parseEnv({ ...base, PORT: 'eighty' })).toThrow(/environment: PORT/);
    expect(() => parseEnv({ ...base, REDIS_URL: 'localhost:6379' })).toThrow('REDIS_URL must be a redis:// or rediss:// URL');
  });

  it("reads SLACK_EDITS_PER_MINUTE (the workspace's chat.update budget), and names a bad one with what it must be", () => {
    expect(parseEnv({ ...base, SLACK_EDITS_PER_MINUTE: '100' }).SLACK_EDITS_PER_MINUTE).toBe(100);
    expect(parseEnv(base).SLACK_EDITS_PER_MINUTE).toBeUndefined(); // the outbox's default: 50, Slack's Tier 3
    expect(() => parseEnv({ ...base, SLACK_EDITS_PER_MINUTE: 'fifty' })).toThrow('environment: SLACK_EDITS_PER_MINUTE must be a whole number of edits, like 50');
    expect(() => parseEnv({ ...base, SLACK_EDITS_PER_MINUTE: '0' })).toThrow('environment: SLACK_EDITS_PER_MINUTE must be at least 1');
  });

  it('reads WORKER_CONCURRENCY and STATUS_CONCURRENCY, and names a bad one with what it must be', () => {
    expect(parseEnv({ ...base, WORKER_CONCURRENCY: '25', STATUS_CONCURRENCY: '64' })).toMatchObject({ WORKER_CONCURRENCY: 25, STATUS_CONCURRENCY: 64 });
    expect(parseEnv(base).WORKER_CONCURRENCY).toBeUndefined(); // the engine's default, DEFAULT_WORKER_CONCURRENCY (10)
    expect(() => parseEnv({ ...base, WORKER_CONCURRENCY: 'ten' })).toThrow('environment: WORKER_CONCURRENCY must be a whole number of jobs, like 10');
    expect(() => parseEnv({ ...base, WORKER_CONCURRENCY: '0' })).toThrow('environment: WORKER_CONCURRENCY must be at least 1');
    expect(() => parseEnv({ ...base, STATUS_CONCURRENCY: '2.5' })).toThrow('environment: STATUS_CONCURRENCY must be a whole number of clusters');
  });

  it('reads WORKER_CALLS_IN_FLIGHT, and names a bad one with what it must be', () => {
    expect(parseEnv({ ...base, WORKER_CALLS_IN_FLIGHT: '32' }).WORKER_CALLS_IN_FLIGHT).toBe(32);
    expect(parseEnv(base).WORKER_CALLS_IN_FLIGHT).toBeUndefined(); // the engine's default, DEFAULT_WORKER_CALLS_IN_FLIGHT (16)
    expect(() => parseEnv({ ...base, WORKER_CALLS_IN_FLIGHT: 'many' })).toThrow('environment: WORKER_CALLS_IN_FLIGHT must be a whole number of calls, like 16');
    expect(() => parseEnv({ ...base, WORKER_CALLS_IN_FLIGHT: '0' })).toThrow('environment: WORKER_CALLS_IN_FLIGHT must be at least 1');
    expect(() => parseEnv({ ...base, WORKER_CALLS_IN_FLIGHT: '5000' })).toThrow('environment: WORKER_CALLS_IN_FLIGHT must be at most 1000');
  });

  it('treats empty variables as unset', () => {
    expect(parseEnv({ ...base, SLACK_APP_TOKEN: '' }).SLACK_APP_TOKEN).toBeUndefined();
  });
});
