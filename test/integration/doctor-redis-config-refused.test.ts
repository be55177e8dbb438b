import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/demo/ensure-redis.js';
import { redisChecks } from '../../src/doctor/redis-checks.js';

/**
 * ElastiCache refuses CONFIG (it is renamed away): doctor cannot read maxmemory-policy or appendonly there, so it says
 * "not checked" and names the parameter-group settings to verify, instead of failing or guessing. A redis-server
 * started here with CONFIG renamed away plays that part.
 */
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `redis://127.0.0.1:${port}`;
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--rename-command', 'CONFIG', ''], { stdio: 'ignore' });
});
afterAll(() => void server?.kill('SIGKILL'));

describe('doctor on a Redis that refuses CONFIG', () => {
  it('shows the settings as not checked, naming the parameter group', async () => {
    let checks = await redisChecks(url);
    // redis-server may still be starting: a refused connection is the only answer worth asking again for.
    for (let i = 0; checks[0].detail.includes('ECONNREFUSED') && i < 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      checks = await redisChecks(url);
    }
    expect(checks.map((c) => [c.id, c.ok])).toEqual([['redis.reachable', true], ['redis.config', null], ['redis.version', true]]);
    expect(checks[1].detail).toMatch(/parameter group.*maxmemory-policy is noeviction/);
  });
});
