import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, startSimulator, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim';
import { freshPrefix, redisUrl } from '../support/redis-url.js';
import { freePort } from '../../src/demo/ensure-redis.js';

/**
 * The image's contents without a container engine: the Dockerfile is read (not copied by hand, so it follows every
 * change to it), each stage is rebuilt in a temporary directory from exactly its COPY lines, its RUN lines run there
 * (`npm ci --omit=dev`), and the runtime stage's CMD starts the bot with the image's ENV. The bot must come up
 * against the simulator and the fake Slack and answer /healthz: any file or production dependency the image lacks
 * fails here.
 */
const run = promisify(execFile);
const SECRET = 'smoke-signing-secret-0123456789';

interface Stage {
  name: string;
  steps: Array<{ op: 'COPY'; from?: string; sources: string[]; dest: string } | { op: 'RUN'; command: string } | { op: 'ENV'; vars: Record<string, string> }>;
  cmd?: string[];
  workdir: string;
}

/** The instructions this project's Dockerfile uses: FROM … AS, WORKDIR, COPY [--from], RUN, ENV, CMD (exec form). */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const line of lines) {
    const [instruction, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    const stage = stages.at(-1);
    switch (instruction.toUpperCase()) {
      case 'FROM':
        stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.length), steps: [], workdir: '/' });
        break;
      case 'WORKDIR':
        stage!.workdir = args;
        break;
      case 'COPY': {
        const parts = rest.filter((p) => !p.startsWith('--') || p.startsWith('--from='));
        const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
        const paths = parts.filter((p) => !p.startsWith('--from='));
        stage!.steps.push({ op: 'COPY', from, sources: paths.slice(0, -1), dest: paths.at(-1)! });
        break;
      }
      case 'RUN':
        stage!.steps.push({ op: 'RUN', command: args });
        break;
      case 'ENV':
        stage!.steps.push({ op: 'ENV', vars: Object.fromEntries([...args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])) });
        break;
      case 'CMD':
        stage!.cmd = JSON.parse(args) as string[];
        break;
    }
  }
  return stages;
}


let root: string;
let sim: SimServer;
let fake: FakeSlack;
let bot: ChildProcess | undefined;
let output = '';
let runtimeDir: string;
let runtimeEnv: Record<string, string> = {};
let cmd: string[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'image-smoke-'));
  const stages = parseDockerfile(readFileSync('Dockerfile', 'utf8'));
  const dirs = new Map<string, string>();
  for (const stage of stages) {
    const dir = join(root, stage.name);
    mkdirSync(dir, { recursive: true });
    dirs.set(stage.name, dir);
    const env: Record<string, string> = {};
    // Paths inside the image are relative to the stage's WORKDIR (/app), which is this directory.
    const inStage = (path: string) => join(dir, path.startsWith('/') ? path.slice(stage.workdir.length).replace(/^\/+/, '') : path);
    for (const step of stage.steps) {
      if (step.op === 'ENV') Object.assign(env, step.vars);
      if (step.op === 'COPY') {
        for (const source of step.sources) {
          const from = step.from ? join(dirs.get(step.from)!, source.replace(/^\/app\/?/, '')) : source;
          const dest = step.dest.endsWith('/') || step.sources.length > 1 ? join(inStage(step.dest), source.split('/').at(-1)!) : inStage(step.dest);
          mkdirSync(dirname(dest), { recursive: true });
          if (step.from) renameSync(from, dest); // the deps stage's node_modules: moved, as big as it is
          else cpSync(from, dest, { recursive: true });
        }
      }
      if (step.op === 'RUN') {
        await run('sh', ['-c', step.command], { cwd: dir, env: { ...process.env, ...env, npm_config_prefer_offline: 'true' }, timeout: 240_000 });
      }
    }
    runtimeDir = dir;
    runtimeEnv = env;
    cmd = stage.cmd ?? [];
  }

  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 60 });
  fake = await startFakeSlack({ signingSecret: SECRET });
  const clustersFile = join(root, 'clusters.yaml');
  writeFileSync(clustersFile, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [U0APP] }\n');
  const port = await freePort();
  bot = spawn(cmd[0], cmd.slice(1), {
    cwd: runtimeDir,
    env: {
      PATH: process.env.PATH ?? '',
      ...runtimeEnv,
      PORT: String(port),
      CLUSTERS_FILE: clustersFile,
      SLACK_BOT_TOKEN: 'xoxb-smoke-token',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: freshPrefix('smoke'),
      AWS_ENDPOINT_URL: sim.url,
      AWS_REGION: 'us-west-2',
      AWS_ACCESS_KEY_ID: 'smoke',
      AWS_SECRET_ACCESS_KEY: 'smoke',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  bot.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  bot.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  runtimeEnv = { ...runtimeEnv, PORT: String(port) };
}, 300_000);

afterAll(async () => {
  if (bot && bot.exitCode === null) {
    bot.kill('SIGTERM');
    await new Promise((resolve) => bot!.once('exit', resolve));
  }
  await fake?.close();
  await sim?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the image built from the Dockerfile', () => {
  it('starts from its own files and production dependencies only, and answers /healthz and /metrics', async () => {
    const base = `http://127.0.0.1:${runtimeEnv.PORT}`;
    const deadline = Date.now() + 60_000;
    let health: Response | undefined;
    while (Date.now() < deadline && bot!.exitCode === null) {
      health = await fetch(`${base}/healthz`).catch(() => undefined);
      if (health?.ok) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(bot!.exitCode, `the bot exited:\n${output}`).toBeNull();
    expect(health?.status, output).toBe(200);
    expect(await health!.json()).toEqual({ ok: true });
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^process_resident_memory_bytes/m);
    // Nothing dev-only slipped in: vitest and typescript are devDependencies.
    await expect(run('node', ['-e', 'require.resolve("vitest")'], { cwd: runtimeDir })).rejects.toThrow();
  });

  it('stops cleanly on SIGTERM, as Kubernetes stops it', async () => {
    bot!.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => bot!.once('exit', (c) => resolve(c)));
    expect(code, output).toBe(0);
  });
});
