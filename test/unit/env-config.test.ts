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

  it('treats empty variables as unset', () => {
    expect(parseEnv({ ...base, SLACK_APP_TOKEN: '' }).SLACK_APP_TOKEN).toBeUndefined();
  });
});
