import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { startSimulator, type SimServer, startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRedis, type RedisHandle } from '../../src/demo/ensure-redis.js';
import { builtEntry } from '../support/built-entry.js';

/**
 * The real entry point (`src/main.ts`, ROLE=all) in a process of its own, with a Redis of its own that the test
 * then stops: slash commands get a sentence instead of a hang, and SIGTERM still ends the process (bounded by
 * SHUTDOWN_TIMEOUT_SECONDS) although its worker and outbox can no longer reach Redis.
 */
const SECRET = 'outage-signing-secret-0123456789';
let redis: RedisHandle;
let sim: SimServer;
let fake: FakeSlack;
let bot: ChildProcessWithoutNullStreams;
const output: string[] = [];

beforeAll(async () => {
  // Port 1 never answers, so this always starts a throwaway redis-server the test may stop.
  redis = await ensureRedis('redis://127.0.0.1:1');
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 600 });
  fake = await startFakeSlack({ signingSecret: SECRET });
  const dir = mkdtempSync(join(tmpdir(), 'outage-'));
  const clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [U0APP] }\n');
  bot = spawn(process.execPath, await builtEntry('src/main.ts'), {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: 'xoxb-outage-token',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
      REDIS_URL: redis.url,
      PORT: '0',
      CLUSTERS_FILE: clustersFile,
      LOG_LEVEL: 'info',
      QUEUE_PREFIX: 'outage',
      SHUTDOWN_TIMEOUT_SECONDS: '4',
      AWS_ENDPOINT_URL: sim.url,
      AWS_REGION: 'us-west-2',
      AWS_ACCESS_KEY_ID: 'AKIDSIMULATOR',
      AWS_SECRET_ACCESS_KEY: 'simulator',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  bot.stdout.on('data', (chunk) => output.push(...String(chunk).split('\n').filter(Boolean)));
  bot.stderr.on('data', (chunk) => output.push(...String(chunk).split('\n').filter(Boolean)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bot did not start:\n${output.join('\n')}`)), 60_000);
    bot.stdout.on('data', () => {
      const line = output.map((text) => { try { return JSON.parse(text); } catch { return undefined; } }).find((entry) => entry?.msg === 'Slack app listening');
      if (line) {
        clearTimeout(timer);
        resolve(line.port);
      }
    });
    bot.on('exit', (code) => reject(new Error(`the bot exited with ${code}:\n${output.join('\n')}`)));
  });
  fake.setBotEventsUrl(`http://127.0.0.1:${port}/slack/events`);
});

afterAll(async () => {
  if (bot.exitCode === null) bot.kill('SIGKILL');
  await fake?.close();
  await sim?.close();
  await redis?.stop();
});

describe('Redis goes away', () => {
  it('commands are answered with a sentence, nothing starts, and SIGTERM still ends the process', async () => {
    await fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    await fake.waitFor((slack) => slack.ephemerals('U0REQ').length === 1, { timeoutMs: 15_000 });
    await redis.stop();

    const start = await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(start.status).toBe(200);
    const [, startReply] = await fake.waitFor((slack) => slack.ephemerals('U0REQ').length === 2 && slack.ephemerals('U0REQ'), { timeoutMs: 20_000 });
    expect(startReply.text).toMatch(/The job queue \(Redis\) is unavailable, so nothing was started or changed/);
    await fake.sendSlashCommand({ text: 'jobs', userId: 'U0REQ', channelId: 'C0DEMO' });
    const [, , jobsReply] = await fake.waitFor((slack) => slack.ephemerals('U0REQ').length === 3 && slack.ephemerals('U0REQ'), { timeoutMs: 20_000 });
    expect(jobsReply.text).toMatch(/The job queue \(Redis\) is unavailable/);
    expect(fake.messages('C0DEMO')).toEqual([]); // no thread was opened

    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill('SIGTERM');
    const code = await exited; // the test's own timeout is the bound we could not meet
    expect(code).not.toBeNull();
    expect(output.some((line) => line.includes('"msg":"shutting down"'))).toBe(true);
  });
});
