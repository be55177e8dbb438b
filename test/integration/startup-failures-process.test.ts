import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, startSimulator, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim';
import { freePort } from '../../src/demo/ensure-redis.js';
import { redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';
import { builtEntry } from '../support/built-entry.js';
import { CLOSED_PORT } from '../support/closed-port.js';

/**
 * The real entry point (`src/main.ts`) in a process of its own, started with one thing wrong at a time: it prints
 * one line naming what failed and what to do, and exits 1 (Kubernetes restarts it) instead of retrying forever —
 * no ioredis stack traces, no hang. Slack unreachable and a token Slack rejects are told apart.
 */
const SECRET = 'startup-signing-secret-0123456789';
let sim: SimServer;
let fake: FakeSlack;
let clustersFile: string;
let home: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1' });
  fake = await startFakeSlack({ signingSecret: SECRET });
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  home = mkdtempSync(join(tmpdir(), 'startup-home-'));
  clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [U0APP] }\n');
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  await sim?.close();
});

function healthyEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    SLACK_BOT_TOKEN: 'xoxb-startup-token',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    REDIS_URL: redisUrl,
    PORT: '0',
    CLUSTERS_FILE: clustersFile,
    QUEUE_PREFIX: `startup-${process.pid}`,
    AWS_ENDPOINT_URL: sim.url,
    AWS_REGION: 'us-west-2',
    AWS_ACCESS_KEY_ID: 'AKIDSTARTUP',
    AWS_SECRET_ACCESS_KEY: 'simulator',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/**
 * Runs the bot until it exits (or says it started, which fails the test); its stderr lines and exit code. The bot is
 * src/main.ts bundled by the test kit (built-entry.ts), as `npm start` runs dist/'s bundle of it.
 */
async function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string[]; stdout: string[] }> {
  const child = spawn(process.execPath, await builtEntry('src/main.ts'), { cwd: process.cwd(), env });
  children.push(child);
  const stderr: string[] = [];
  const stdout: string[] = [];
  child.stderr!.on('data', (chunk) => stderr.push(...String(chunk).split('\n').filter(Boolean)));
  child.stdout!.on('data', (chunk) => stdout.push(...String(chunk).split('\n').filter(Boolean)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, stdout })));
}

/** Whether a Redis listens on `port` and answers a PING (with PONG or NOAUTH alike). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (reply) => {
      socket.destroy();
      resolve(/^(\+PONG|-NOAUTH)/.test(String(reply)));
    });
    socket.once('error', () => resolve(false));
  });
}

describe('start-up failures: one line and exit 1', () => {
  it('Redis unreachable', async () => {
    const { code, stderr, stdout } = await run({ ...healthyEnv(), REDIS_URL: `redis://127.0.0.1:${CLOSED_PORT}` });
    expect(code).toBe(1);
    expect(stderr).toEqual([`eks-upgrade-bot: cannot start: Redis at redis://127.0.0.1:${CLOSED_PORT} is unreachable (ECONNREFUSED); start Redis there or set REDIS_URL to where it runs (rediss:// for TLS, as ElastiCache with in-transit encryption needs).`]);
    expect(stdout.filter((line) => line.includes('ioredis'))).toEqual([]);
  });

  it('REDIS_URL pointing at another service (one answering in HTTP) is told apart from a Redis that is down', async () => {
    // It answers the bot's first command with an HTTP 400 and keeps the connection open. (A real HTTP server closes
    // it too, and with the bot's commands unread its close is a reset that may beat the answer to the bot: then the
    // bot can only say what it saw, EPIPE or ECONNRESET.)
    const sockets = new Set<Socket>();
    const http = createServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    try {
      const { code, stderr } = await run({ ...healthyEnv(), REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(code).toBe(1);
      expect(stderr).toEqual([`eks-upgrade-bot: cannot start: what answers at redis://127.0.0.1:${port} is not Redis (its reply begins with "H", as an HTTP server's does); point REDIS_URL at the port Redis listens on (6379 unless it was changed), not at another service.`]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('Redis refusing AUTH', async () => {
    const port = await freePort();
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'right-password'], { stdio: 'ignore' });
    children.push(server);
    try {
      // Wait until it answers (NOAUTH is an answer), with a bare PING rather than a bot process per try.
      await until(() => answersPing(port), `redis-server on port ${port} to answer`, 30_000);
      const probe = await run({ ...healthyEnv(), REDIS_URL: `redis://:wrong-password@127.0.0.1:${port}` });
      expect(probe.code).toBe(1);
      expect(probe.stderr).toHaveLength(1);
      expect(probe.stderr[0]).toMatch(new RegExp(`^eks-upgrade-bot: cannot start: Redis at redis://127\\.0\\.0\\.1:${port} refused AUTH \\(WRONGPASS[^)]*\\); put the right password in REDIS_URL`));
      expect(probe.stderr[0]).not.toContain('wrong-password');
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('Slack unreachable (a network error) is told apart from a token Slack rejects', async () => {
    const unreachable = await run({ ...healthyEnv(), SLACK_API_URL: 'http://127.0.0.1:1/api/' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toEqual(['eks-upgrade-bot: cannot start: Slack is unreachable at http://127.0.0.1:1/api/ (network error: fetch failed); let the bot reach http://127.0.0.1:1/api/ over HTTPS (egress, proxy, SLACK_API_URL); the token was not checked.']);

    fake.failNext('auth.test', { error: 'invalid_auth' });
    const rejected = await run(healthyEnv());
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toEqual(["eks-upgrade-bot: cannot start: Slack rejected SLACK_BOT_TOKEN (invalid_auth); set SLACK_BOT_TOKEN to the app's Bot User OAuth Token (xoxb-…, under OAuth & Permissions at api.slack.com/apps), reinstalling the app if it was revoked."]);
  });

  it('no AWS credentials, and no region', async () => {
    const { AWS_ACCESS_KEY_ID: _a, AWS_SECRET_ACCESS_KEY: _s, ...noCredentials } = healthyEnv();
    const missing = await run(noCredentials);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toEqual(['eks-upgrade-bot: cannot start: no AWS credentials were found; run the bot with an IAM role (the IRSA annotation or a Pod Identity association, docs/deploy.md step 2), or set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.']);

    const { AWS_REGION: _r, ...noRegion } = healthyEnv();
    const regionless = await run(noRegion);
    expect(regionless.code).toBe(1);
    expect(regionless.stderr).toEqual(['eks-upgrade-bot: cannot start: AWS_REGION is not set, so the bot does not know its own region; fill `region` of the eks-upgrade-bot-aws ConfigMap in your overlay (deploy/overlays/example/kustomization.yaml), or set AWS_REGION.']);
  });
});
