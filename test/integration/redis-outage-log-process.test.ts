import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, startSimulator, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim';
import { freePort } from '../../src/demo/ensure-redis.js';
import { builtEntry } from '../support/built-entry.js';

/**
 * After start-up a Redis outage is ridden out as before ("The job queue (Redis) is unavailable…" to users), and the
 * log says so once when it starts and once when it ends — not a line (or an ioredis stack trace) per retry of each
 * of the bot's connections. The real entry point in a process of its own, with a redis-server of the test's own.
 */
const SECRET = 'outage-log-signing-secret-012345';
let sim: SimServer;
let fake: FakeSlack;
let redisPort: number;
let redis: ChildProcess | undefined;
let bot: ChildProcess;
const output: string[] = [];

function startRedis(): ChildProcess {
  return spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

async function waitForLine(predicate: (line: string) => boolean, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (output.some(predicate)) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(check, 50);
    bot.once('exit', (code) => reject(new Error(`the bot exited (${code}) before ${what}:\n${output.join('\n')}`)));
    check();
  });
}

beforeAll(async () => {
  redisPort = await freePort();
  redis = startRedis();
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1' });
  fake = await startFakeSlack({ signingSecret: SECRET });
  const dir = mkdtempSync(join(tmpdir(), 'outage-log-'));
  const clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [U0APP] }\n');
  const env = {
    PATH: process.env.PATH, HOME: dir, SLACK_BOT_TOKEN: 'xoxb-outage-log', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: fake.apiUrl,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`, PORT: '0', CLUSTERS_FILE: clustersFile, LOG_LEVEL: 'info', QUEUE_PREFIX: 'outage-log',
    AWS_ENDPOINT_URL: sim.url, AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'AKIDOUTAGE', AWS_SECRET_ACCESS_KEY: 'x', AWS_EC2_METADATA_DISABLED: 'true',
  };
  // Until redis-server listens, start-up refuses with its one line: start again until the bot is up.
  for (;;) {
    output.length = 0;
    bot = spawn(process.execPath, await builtEntry('src/main.ts'), { cwd: process.cwd(), env });
    bot.stdout!.on('data', (chunk) => output.push(...String(chunk).split('\n').filter(Boolean)));
    bot.stderr!.on('data', (chunk) => output.push(...String(chunk).split('\n').filter(Boolean)));
    const started = await waitForLine((line) => line.includes('"msg":"eks-upgrade-bot started"'), 'starting').then(() => true, () => false);
    if (started) break;
  }
  const port = JSON.parse(output.find((line) => line.includes('"msg":"Slack app listening"'))!).port;
  fake.setBotEventsUrl(`http://127.0.0.1:${port}/slack/events`);
});

afterAll(async () => {
  if (bot?.exitCode === null) bot.kill('SIGKILL');
  redis?.kill('SIGKILL');
  await fake?.close();
  await sim?.close();
});

describe('a Redis outage after start-up', () => {
  it('is one log line when it starts and one when it ends, and users are told as before', async () => {
    redis!.kill('SIGKILL');
    await waitForLine((line) => line.includes('Redis is unavailable'), 'the outage line');
    // Two commands answered during the outage: seconds of retries by every connection of the bot.
    for (const n of [1, 2]) {
      await fake.sendSlashCommand({ text: 'jobs', userId: 'U0REQ', channelId: 'C0DEMO' });
      const replies = await fake.waitFor((slack) => slack.ephemerals('U0REQ').length === n && slack.ephemerals('U0REQ'), { timeoutMs: 30_000 });
      expect(replies[n - 1].text).toMatch(/The job queue \(Redis\) is unavailable/);
    }
    redis = startRedis();
    await waitForLine((line) => line.includes('"msg":"Redis is reachable again"'), 'the recovery line');

    expect(output.filter((line) => line.includes('Redis is unavailable'))).toHaveLength(1);
    expect(output.filter((line) => line.includes('[ioredis]') || line.includes('TCPConnectWrap'))).toEqual([]);
    expect(output.filter((line) => line.includes('ECONNREFUSED') && !line.includes('Redis is unavailable'))).toEqual([]);
  });
});
