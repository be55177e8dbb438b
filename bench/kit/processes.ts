import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim/services';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { freePort } from '../../src/demo/ensure-redis.js';

/** bin/load-built.cjs (CommonJS, run by node itself): where each bot process keeps its code cache. */
const loadBuilt = createRequire(import.meta.url)('../../bin/load-built.cjs') as { codeCacheName(name: string, execArgv?: string[], nodeOptions?: string): string; cacheDirs(): string[] };

/**
 * The benchmarks' processes, each started as it is deployed: the simulator (dist/sim/cli.js), the bot
 * (bin/eks-upgrade-bot.cjs → dist/main.cjs, ROLE=web and ROLE=worker, or all), a bare Bolt app for baselines. The benchmark driver (which also
 * hosts the fake Slack) only sends requests and reads clocks.
 */
export const ROOT = resolve(import.meta.dirname, '../../');

export interface Child {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function track(child: ChildProcess): Child {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  return {
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface SimChild extends Child {
  url: string;
}

/**
 * The simulator's CPU priority where a figure times a command of ours against it (nice 10, as `nice` sets it): AWS
 * and the clusters' API servers do their work on other machines, so the command, not the stand-in, gets the CPU
 * first when both want it. The simulator still answers every call, with any latency the figure adds.
 */
export const SIM_NICE = 10;

/** `node dist/sim/cli.js --scenario … --port 0 --quiet [flags]`, resolved once it prints where it listens. */
export async function startSimProcess(args: string[], opts: { yieldCpu?: boolean } = {}): Promise<SimChild> {
  const child = track(spawn(process.execPath, ['dist/sim/cli.js', '--port', '0', '--quiet', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  if (opts.yieldCpu && child.process.pid !== undefined) setPriority(child.process.pid, SIM_NICE);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the simulator did not start within 120 s:\n${child.output()}`)), 120_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(child.output());
      if (match) {
        clearTimeout(timer);
        child.process.stdout!.off('data', check);
        resolve(match[1]);
      }
    };
    child.process.stdout!.on('data', check);
    child.process.once('exit', (code) => reject(new Error(`the simulator exited (${code}):\n${child.output()}`)));
  });
  return { ...child, url };
}

export interface BotOptions {
  role: 'web' | 'worker' | 'all';
  simUrl: string;
  slackApiUrl: string;
  signingSecret: string;
  redisUrl: string;
  prefix: string;
  clustersYaml: string;
  env?: Record<string, string>;
  /** Node arguments that start the bot (default the build: bin/eks-upgrade-bot.cjs). */
  entry?: string[];
}

export interface BotChild extends Child {
  port: number;
  /** Milliseconds from spawn to the first /healthz 200. */
  readyMs: number;
  /** The code cache file this process reads or saves (bin/load-built.cjs, codeCacheName). */
  codeCache: string;
}

/**
 * A bot process started with V8 flags no earlier start had (a fresh build, another NODE_OPTIONS) saves its code cache
 * about 5 s after it loads (bin/eks-upgrade-bot.cjs, `saveAfterMs`): a pause of a few hundred milliseconds, once, for
 * the next start. Benches of steady-state latency wait until the cache file for each bot's flags is there (at most
 * 20 s), as a user's second start never has that pause.
 */
export async function pastCodeCacheSave(...bots: BotChild[]): Promise<void> {
  const saved = (bot: BotChild) => loadBuilt.cacheDirs().some((dir) => existsSync(join(dir, bot.codeCache)));
  const deadline = performance.now() + 20_000;
  while (!bots.every(saved)) {
    if (performance.now() > deadline) {
      process.stdout.write(`(a bot process had not saved its code cache 20 s in; measuring anyway)\n`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 200)); // the file is written right after the cache is made
}

/** The bot as deployed: `node bin/eks-upgrade-bot.cjs` with the environment of docs/configuration.md; resolves when /healthz answers 200. */
export async function startBotProcess(options: BotOptions): Promise<BotChild> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bot-'));
  const clustersFile = join(dir, 'clusters.yaml');
  writeFileSync(clustersFile, options.clustersYaml);
  const port = await freePort();
  const started = performance.now();
  const args = [...profileFlags(options.role), ...(options.entry ?? ['bin/eks-upgrade-bot.cjs'])];
  const nodeOptions = options.env?.NODE_OPTIONS ?? deployedNodeOptions(options.role);
  const codeCache = loadBuilt.codeCacheName('main', args.slice(0, Math.max(0, args.findIndex((arg) => !arg.startsWith('-')))), nodeOptions);
  const child = track(
    spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        ROLE: options.role,
        PORT: String(port),
        CLUSTERS_FILE: clustersFile,
        SLACK_BOT_TOKEN: 'xoxb-bench',
        SLACK_SIGNING_SECRET: options.signingSecret,
        SLACK_API_URL: options.slackApiUrl,
        REDIS_URL: options.redisUrl,
        QUEUE_PREFIX: options.prefix,
        AWS_ENDPOINT_URL: options.simUrl,
        AWS_REGION: 'us-west-2',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        AWS_POLL_SECONDS: '1',
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: deployedNodeOptions(options.role),
        ...options.env,
      },
    }),
  );
  const readyMs = await waitHealthy(`http://127.0.0.1:${port}/healthz`, child, started);
  return { ...child, port, readyMs, codeCache };
}

/**
 * The NODE_OPTIONS a role runs with as deployed: the value in its Deployment (deploy/kubernetes/deployment-<role>.yaml,
 * the heap cap that fits its pod's memory limit), so the benches measure the heap the pods get. BENCH_NODE_OPTIONS,
 * when set (empty: none), replaces it for every role; `all` (one process, docker-compose) has none.
 */
export function deployedNodeOptions(role: 'web' | 'worker' | 'all'): string {
  if (process.env.BENCH_NODE_OPTIONS !== undefined) return process.env.BENCH_NODE_OPTIONS;
  if (role === 'all') return '';
  const manifest = parse(readFileSync(join(ROOT, `deploy/kubernetes/deployment-${role}.yaml`), 'utf8')) as {
    spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } };
  };
  return manifest.spec.template.spec.containers[0].env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
}

/** Node flags for a bench's bot process from an environment variable (space-separated; empty or unset: none). */
export function nodeArgsFrom(variable: string): string[] {
  return process.env[variable]?.split(' ').filter(Boolean) ?? [];
}

/** BENCH_CPU_PROF=<dir>: each bot process writes a V8 CPU profile there when it stops (open it in Chrome DevTools). */
function profileFlags(role: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`] : [];
}

export async function waitHealthy(url: string, child: Child, started: number, timeoutMs = 60_000): Promise<number> {
  while (performance.now() - started < timeoutMs) {
    if (child.process.exitCode !== null) throw new Error(`the process exited before ${url} answered:\n${child.output()}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${child.output()}`);
}

/** A bare Bolt app that acknowledges every slash command and does nothing else: the ack baseline. */
export async function startBareBolt(signingSecret: string, slackApiUrl: string): Promise<Child & { port: number }> {
  const port = await freePort();
  const child = track(
    // BENCH_CPU_PROF profiles the baseline too, under node's own file names: tsx's loader thread writes one of its own.
    spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), '--import', 'tsx', 'bench/kit/bare-bolt.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', PORT: String(port), SLACK_SIGNING_SECRET: signingSecret, SLACK_API_URL: slackApiUrl },
    }),
  );
  await waitHealthy(`http://127.0.0.1:${port}/healthz`, child, performance.now());
  return { ...child, port };
}

/** Runs a command to completion; resolves with its wall time (ms), exit code and output. */
export function timeCommand(args: string[], env: Record<string, string>): Promise<{ ms: number; code: number; stdout: string; stderr: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ ms: performance.now() - started, code: code ?? 1, stdout, stderr }));
  });
}

/** CPU time a process has used so far, in ms (10 ms steps): /proc/<pid>/stat's utime and stime, fields 14 and 15, in clock ticks of 1/100 s. */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function freshPrefix(name: string): string {
  return `eks-upgrade-bench-${name}-${randomBytes(4).toString('hex')}`;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The most of `times` (ms) that fall in any one window of `windowMs`: how Slack counts a rate limit. */
export function mostInWindow(times: number[], windowMs: number): number {
  return Math.max(0, ...times.map((at) => times.filter((t) => t >= at && t < at + windowMs).length));
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export interface SlackStack {
  sim: SimChild;
  fake: FakeSlack;
  web: BotChild;
  worker: BotChild;
  prefix: string;
  stop(): Promise<void>;
}

/**
 * The bot as deployed, driven through Slack: the simulator in its own process (`simArgs`), the fake Slack in the
 * driver, a ROLE=web and a ROLE=worker process (`workerEnv` on top of `env` for the worker only); clusters.yaml may
 * be read from the running simulator. For benchmarks that run whole upgrades from a signed command to the summary.
 */
export async function startSlackStack(opts: { name: string; simArgs: string[]; clustersYaml: string | ((sim: SimChild) => Promise<string>); redisUrl: string; env?: Record<string, string>; workerEnv?: Record<string, string>; workerEntry?: string[]; rateLimitSpeed?: number }): Promise<SlackStack> {
  const signingSecret = randomBytes(16).toString('hex');
  const sim = await startSimProcess(opts.simArgs);
  const fake = await startFakeSlack({ signingSecret, userNames: { U0REQ: 'requester', U0APP: 'approver' }, rateLimitSpeed: opts.rateLimitSpeed });
  const prefix = freshPrefix(opts.name);
  const clustersYaml = typeof opts.clustersYaml === 'string' ? opts.clustersYaml : await opts.clustersYaml(sim);
  const common = { simUrl: sim.url, slackApiUrl: fake.apiUrl, signingSecret, redisUrl: opts.redisUrl, prefix, clustersYaml };
  const started = await Promise.allSettled([
    startBotProcess({ ...common, role: 'web', env: opts.env }),
    startBotProcess({ ...common, role: 'worker', env: { ...opts.env, ...opts.workerEnv }, entry: opts.workerEntry }),
  ]);
  const [web, worker] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  if (!web || !worker) {
    await Promise.all([web?.stop(), worker?.stop(), sim.stop(), fake.close()]);
    throw (started.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
  }
  fake.setBotEventsUrl(`http://127.0.0.1:${web.port}/slack/events`);
  await pastCodeCacheSave(web, worker);
  return {
    sim, fake, web, worker, prefix,
    async stop() {
      await Promise.all([web.stop(), worker.stop()]);
      await Promise.all([sim.stop(), fake.close(), deletePrefix(opts.redisUrl, prefix)]);
    },
  };
}

/** Removes a run's queues, outbox and job records from Redis (a shared Redis keeps nothing of a finished bench). */
async function deletePrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 }) as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  } finally {
    redis.disconnect();
  }
}
