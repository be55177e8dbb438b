import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, startSimulator, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim';
import { freePort } from '../../src/demo/ensure-redis.js';
import { builtEntry } from '../support/built-entry.js';

/**
 * Redis as ElastiCache serves it with in-transit encryption and AUTH: a real redis-server started here with TLS
 * only (a throwaway CA and certificate made with openssl) and `requirepass`. The bot, pointed at
 * `rediss://:PASSWORD@localhost:PORT` (the CA trusted through NODE_EXTRA_CA_CERTS, as Amazon's is by default), starts
 * and answers a command that reads the queue; doctor's Redis checks pass through the same URL; a wrong password is one
 * line and exit 1.
 */
const SECRET = 'tls-signing-secret-0123456789abcd';
const PASSWORD = 'tls-auth-token-0123456789';
let dir: string;
let port: number;
let redis: ChildProcess;
let sim: SimServer;
let fake: FakeSlack;
const children: ChildProcess[] = [];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=eks-upgrade-bot test CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
  port = await freePort();
  redis = spawn('redis-server', [
    '--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir,
    '--tls-cert-file', join(dir, 'server.pem'), '--tls-key-file', join(dir, 'server.key'), '--tls-ca-cert-file', join(dir, 'ca.pem'),
    '--tls-auth-clients', 'no', '--requirepass', PASSWORD, '--maxmemory-policy', 'noeviction',
  ], { stdio: 'ignore' });
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1' });
  fake = await startFakeSlack({ signingSecret: SECRET });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  redis?.kill('SIGKILL');
  await fake?.close();
  await sim?.close();
});

function env(redisUrl: string): NodeJS.ProcessEnv {
  const clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [U0APP] }\n');
  return {
    PATH: process.env.PATH, HOME: dir, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    SLACK_BOT_TOKEN: 'xoxb-tls', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: fake.apiUrl, REDIS_URL: redisUrl, PORT: '0', CLUSTERS_FILE: clustersFile,
    QUEUE_PREFIX: `tls-${process.pid}`, AWS_ENDPOINT_URL: sim.url, AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'AKIDTLS', AWS_SECRET_ACCESS_KEY: 'x', AWS_EC2_METADATA_DISABLED: 'true',
  };
}

function lines(child: ChildProcess): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  child.stdout!.on('data', (c) => out.push(...String(c).split('\n').filter(Boolean)));
  child.stderr!.on('data', (c) => err.push(...String(c).split('\n').filter(Boolean)));
  return { out, err };
}

/** Waits until redis-server answers TLS connections (doctor's own check, in a child with the CA trusted). */
async function doctorRedis(url: string): Promise<any[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import('./src/doctor/redis-checks.ts').then(async (m) => console.log(JSON.stringify(await m.redisChecks(${JSON.stringify(url)}))))`], { env: env(url), cwd: process.cwd() });
  children.push(child);
  const { out } = lines(child);
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(out.join(''));
}

describe('ElastiCache-style Redis: rediss:// with AUTH', () => {
  it('doctor reaches it over TLS with the password, and reads its settings', async () => {
    const url = `rediss://:${PASSWORD}@localhost:${port}`;
    let checks = await doctorRedis(url);
    // redis-server may still be starting: a refused connection is the only answer worth asking again for.
    for (let i = 0; checks[0]?.detail?.includes('ECONNREFUSED') && i < 50; i++) checks = await doctorRedis(url);
    expect(checks.map((c) => [c.id, c.ok])).toEqual([['redis.reachable', true], ['redis.maxmemory-policy', true], ['redis.appendonly', true], ['redis.version', true]]);
    expect(JSON.stringify(checks)).not.toContain(PASSWORD);
  });

  it('the bot starts on it and answers a command that reads the queue; a wrong password stops it in one line', async () => {
    const bot = spawn(process.execPath, await builtEntry('src/main.ts'), { env: env(`rediss://:${PASSWORD}@localhost:${port}`), cwd: process.cwd() });
    children.push(bot);
    const { out, err } = lines(bot);
    const listening = await new Promise<number>((resolve, reject) => {
      bot.on('exit', (code) => reject(new Error(`the bot exited with ${code}: ${err.join('\n')}`)));
      bot.stdout!.on('data', () => {
        const line = out.map((t) => { try { return JSON.parse(t); } catch { return undefined; } }).find((l) => l?.msg === 'Slack app listening');
        if (line) resolve(line.port);
      });
    });
    fake.setBotEventsUrl(`http://127.0.0.1:${listening}/slack/events`);
    await fake.sendSlashCommand({ text: 'jobs', userId: 'U0REQ', channelId: 'C0DEMO' });
    const [reply] = await fake.waitFor((s) => s.ephemerals('U0REQ').length > 0 && s.ephemerals('U0REQ'), { timeoutMs: 30_000 });
    expect(reply.text).not.toMatch(/unavailable/);
    bot.kill('SIGTERM');

    const wrong = spawn(process.execPath, await builtEntry('src/main.ts'), { env: env(`rediss://:not-the-token@localhost:${port}`), cwd: process.cwd() });
    children.push(wrong);
    const wrongLines = lines(wrong);
    const code = await new Promise((resolve) => wrong.on('exit', resolve));
    expect(code).toBe(1);
    expect(wrongLines.err).toHaveLength(1);
    expect(wrongLines.err[0]).toMatch(new RegExp(`^eks-upgrade-bot: cannot start: Redis at rediss://localhost:${port} refused AUTH \\(WRONGPASS`));
  });
});
