import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { simEnv, startSim } from '@eks-upgrade-bot/sim/kit';
import { ROOT, startTsx, type StartedTsx } from '../support/spawn-tsx.js';

/**
 * Issue 25 item 4: `npm run demo`, `npm run playground` and `eks-upgrade rehearse` run as a user runs them (child
 * processes against the shared Redis, which they did not start) and stopped with Ctrl-C: none of them leaves a key
 * under its prefix.
 */
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis.quit();
});

async function keysMatching(pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

type Started = StartedTsx;

const start = (args: string[], env: NodeJS.ProcessEnv = {}): Started =>
  startTsx(args, { ...process.env, REDIS_URL: redisUrl, LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env }, children);

async function prefixOf(started: Started): Promise<string> {
  await expect.poll(() => /keys under ([\w-]+):/.exec(started.output())?.[1], { timeout: 120_000, interval: 100 }).toBeTruthy();
  return /keys under ([\w-]+):/.exec(started.output())![1];
}

describe('Ctrl-C leaves nothing in a shared Redis', () => {
  /** Waits for the running bot's keys (queues, engine state, outbox), presses Ctrl-C, then looks for any left. */
  async function interruptAndScan(started: Started, exitCode: number): Promise<void> {
    const prefix = await prefixOf(started);
    try {
      await expect.poll(async () => (await keysMatching(`${prefix}:*`)).length, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
      started.child.kill('SIGINT');
      expect(await started.exited).toBe(exitCode);
      expect(await keysMatching(`${prefix}*`)).toEqual([]);
    } finally {
      await deleteKeys(`${prefix}*`);
    }
  }

  it('npm run demo removes its keys', async () => {
    await interruptAndScan(start(['src/demo/run-demo.ts'], { DEMO_SPEED: '30' }), 130);
  });

  it('npm run playground removes its keys', async () => {
    await interruptAndScan(start(['src/playground/run-playground.ts', '--port', '0']), 0);
  });

  describe('eks-upgrade rehearse', () => {
    let sim: SimServer;
    beforeAll(async () => {
      sim = await startSim('demo', { speed: 60 });
    });
    afterAll(async () => sim?.close());
    /** `eks-upgrade rehearse demo --to 1.31` from the sources (src/cli/main.ts), against the simulator. */
    const rehearse = (prefix: string) =>
      start(
        ['--input-type=module', '-e', `const m = await import(${JSON.stringify(join(ROOT, 'src/cli/main.ts'))}); await m.runAndExit(process.argv.slice(1));`, 'rehearse', 'demo', '--to', '1.31'],
        { ...simEnv(sim), QUEUE_PREFIX: prefix, CLUSTERS_FILE: '' },
      );

    it('keeps only the result record requireRehearsal reads once it has run', async () => {
      const prefix = freshPrefix('rehearse-cli-done');
      const cli = rehearse(prefix);
      try {
        expect(await cli.exited).toBe(0);
        expect(await keysMatching(`${prefix}*`)).toEqual([`${prefix}:rehearsal:demo:1.31`]);
      } finally {
        await deleteKeys(`${prefix}*`);
      }
    });

    it('removes its engine keys and records nothing when interrupted', async () => {
      const prefix = freshPrefix('rehearse-cli');
      const cli = rehearse(prefix);
      try {
        // The rehearsal's engine is at work under its own prefix.
        await expect.poll(() => cli.output(), { timeout: 120_000, interval: 100 }).toMatch(/REHEARSAL · started: /);
        await expect.poll(async () => (await keysMatching(`${prefix}-rehearsal-*`)).length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
        cli.child.kill('SIGINT');
        expect(await cli.exited).toBe(130);
        expect(cli.output()).toContain('the rehearsal of demo was interrupted; nothing was recorded and its keys were removed');
        expect(await keysMatching(`${prefix}*`)).toEqual([]);
      } finally {
        await deleteKeys(`${prefix}*`);
      }
    });
  });
});
