import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { loadScenario, type FakeMessage } from '@eks-upgrade-bot/sim/services';
import type { BenchContext, Figure } from './kit/figures.js';
import { cpuMsOf, deployedNodeOptions, nodeArgsFrom } from './kit/processes.js';

/**
 * P8 (issue 30): a rollout of the whole fleet. `fleet --clusters P8_CLUSTERS --fleet-version 1.32` (500 healthy
 * clusters at 1.32, one channel), `/eks-upgrade rollout --to 1.33` in waves of P8_WAVE (100) with
 * `--max-parallel P8_MAX_PARALLEL` (50) and `--soak 0m`, driven through the fake Slack as an approver would: each
 * wave's gate clicked Continue, every upgrade's gates answered. The bot as the e2e stacks run it: a ROLE=web bot
 * in the driver, ONE worker process (test/support/e2e-worker-process.ts bundled like dist/, WORKER_CONCURRENCY =
 * --max-parallel, production's 30 s locks), the simulator at P8_SPEED (600) in the driver. The thread outbox is
 * paced at the e2e stacks' 25 ms per channel with the fake Slack's rate limits off: at Slack's real limits one
 * channel's 500 upgrades would wait on chat.update's Tier 3 (≈ 50 a minute per workspace), which the figure reports
 * as the floor instead.
 * Met when the rollout succeeds, every cluster's thread is correct (status card Succeeded, one UpdateClusterVersion,
 * each step message once and ✅) and the worker's peak RSS (VmHWM) is ≤ 500 MB. Reported per cluster: the worker's
 * CPU (user + system from /proc) and the requests the simulator answered (AWS + Kubernetes), and Slack writes.
 */
const CLUSTERS = Number(process.env.P8_CLUSTERS ?? 500);
const WAVE = Number(process.env.P8_WAVE ?? 100);
const MAX_PARALLEL = Math.min(Number(process.env.P8_MAX_PARALLEL ?? 50), WAVE);
const SPEED = Number(process.env.P8_SPEED ?? 600);
/** The benches' usual AWS poll (P7's): 1 s. */
const POLL_SECONDS = Number(process.env.P8_POLL_SECONDS ?? 1);
const TIMEOUT_MS = Number(process.env.P8_TIMEOUT_S ?? 3_600) * 1000;
const WATCHED_REQUESTS = ['create selfsubjectaccessreviews', 'eks DescribeAddonVersions'];
const FROM = '1.32';
const TO = '1.33';
const CHANNEL = 'C0FLEET';
const RSS_GOAL_MB = 500;
export const P8_GOAL = `rollout succeeds, every thread correct, one worker ≤ ${RSS_GOAL_MB} MB RSS`;

/** A figure the bench prints and the short test in `npm test` asserts on. */
export interface RolloutFigures {
  clusters: number;
  waves: number;
  succeeded: number;
  rolloutOutcome: string;
  problems: string[];
  peakRssMb: number;
  workerCpuMsPerCluster: number;
  requestsPerCluster: { aws: number; kube: number };
  /** The most frequent requests, per cluster ("eks DescribeCluster 12.0"). */
  topRequests: string[];
  /** The worker's RSS once ready, before the rollout. */
  idleRssMb: number;
  slackWritesPerCluster: number;
  waveSeconds: number[];
  seconds: number;
}

const peakRssMbOf = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const rssMbOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * test/support/e2e-worker-process.ts bundled as `npm run build` bundles the bot (bin/build.mjs: one file, plain
 * JavaScript), so the worker's memory and CPU are the deployed bot's, not tsx's compiler and its module graph.
 */
async function bundleWorker(): Promise<{ file: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'p8-worker-'));
  const file = join(dir, 'worker.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../test/support/e2e-worker-process.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    // Bundled CommonJS dependencies call require(); an ES module has none of its own (as dist/sim/cli.js).
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function runRollout(opts: { clusters: number; wave: number; maxParallel: number; speed: number; pollSeconds: number; timeoutMs: number; log?: (line: string) => void }): Promise<RolloutFigures> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const { startE2eStack } = await import('../test/support/e2e-stack.js');
  const { startWorkerChild } = await import('../test/support/e2e-worker.js');
  const { answerAllGates, checkThreads } = await import('../test/support/burst.js');
  const scenario = loadScenario('fleet', { clusters: opts.clusters, fleetVersion: FROM });
  const targets = scenario.clusters.map((c) => ({ name: c.name, region: c.region, to: TO }));
  const clusters = targets.map((t) => ({ name: t.name, region: t.region, channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] }));
  const waves: string[][] = [];
  for (let i = 0; i < targets.length; i += opts.wave) waves.push(targets.slice(i, i + opts.wave).map((t) => t.name));
  const stack = await startE2eStack({ scenario: 'fleet', fleetClusters: opts.clusters, fleetVersion: FROM, speed: opts.speed, pollSeconds: opts.pollSeconds, role: 'web', clusters, slackRateLimits: 'off' });
  const figures: RolloutFigures = { clusters: targets.length, waves: waves.length, succeeded: 0, rolloutOutcome: 'not started', problems: [], peakRssMb: NaN, workerCpuMsPerCluster: NaN, requestsPerCluster: { aws: NaN, kube: NaN }, topRequests: [], idleRssMb: NaN, slackWritesPerCluster: NaN, waveSeconds: [], seconds: 0 };
  log(`P8 simulator, fake Slack and web bot up after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const gates = answerAllGates(stack.fake, CHANNEL, 'U0APP');
  let worker: Awaited<ReturnType<typeof startWorkerChild>> | undefined;
  const bundle = await bundleWorker();
  try {
    worker = await startWorkerChild(stack, clusters, { lockMs: 30_000, env: { WORKER_CONCURRENCY: String(opts.maxParallel), NODE_OPTIONS: deployedNodeOptions('worker') }, entry: [...nodeArgsFrom('P8_NODE_ARGS'), bundle.file] });
    log(`P8 worker ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const cpuBefore = cpuMsOf(worker.pid);
    figures.idleRssMb = rssMbOf(worker.pid);
    stack.sim.requests.reset();
    const writesBefore = slackWrites(stack.fake.messages(CHANNEL));

    const text = `rollout --to ${TO} --waves ${waves.map((w) => `'${w.join(' ')}'`).join(' ')} --soak 0m --max-parallel ${opts.maxParallel}`;
    const ack = await stack.fake.sendSlashCommand({ text, userId: 'U0REQ', channelId: CHANNEL });
    if (ack.status !== 200) throw new Error(`the rollout command was answered ${ack.status}`);
    const created = await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 120_000 });
    const id = /`(r[0-9a-f]{7})`/.exec(created.text)?.[1];
    if (!id || !created.text.startsWith('Created rollout')) throw new Error(`the rollout was not created: ${created.text}`);
    log(`P8 ${created.text.slice(0, 160)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const parent = () => stack.fake.messages(CHANNEL).find((m) => m.text.includes(`Rollout \`${id}\` to`));
    const reply = (pattern: RegExp) => parent()?.replies.find((r) => pattern.test(r.text));
    const ended = /Rollout to [\d.]+ succeeded|stopped and the rollout with it|soak gate of wave \d+ failed|Posting the gate card/;
    for (let wave = 1; wave <= waves.length; wave++) {
      const waveStarted = Date.now();
      const gate = await stack.fake.waitFor(() => reply(new RegExp(`^Wave ${wave} of ${waves.length} is ready`)) ?? reply(ended), { timeoutMs: opts.timeoutMs });
      if (ended.test(gate.text)) break;
      const click = await stack.fake.clickButton({ userId: 'U0APP', channelId: CHANNEL, messageTs: gate.ts, actionId: 'fleet:rollout' });
      if (click.status !== 200) throw new Error(`the Continue of wave ${wave} was answered ${click.status}`);
      await stack.fake.waitFor(() => reply(new RegExp(`Wave ${wave} upgraded`)) ?? reply(ended), { timeoutMs: opts.timeoutMs });
      figures.waveSeconds.push(Math.round((Date.now() - waveStarted) / 100) / 10);
      log(`P8 wave ${wave} of ${waves.length} upgraded in ${figures.waveSeconds.at(-1)} s (worker RSS peak so far ${peakRssMbOf(worker.pid).toFixed(0)} MB)`);
    }
    const outcome = await stack.fake.waitFor(() => reply(ended), { timeoutMs: opts.timeoutMs });
    figures.rolloutOutcome = outcome.text.split('\n')[0]!.slice(0, 200);
    // The thread's last post is its timeline file: once every thread has its own, the outbox has delivered the rest.
    const delivered = () => stack.fake.files().filter((file) => file.threadTs !== undefined).length >= targets.length;
    await stack.fake.waitFor(() => delivered() || undefined, { timeoutMs: 300_000 }).catch(() => undefined);

    figures.peakRssMb = peakRssMbOf(worker.pid);
    figures.workerCpuMsPerCluster = (cpuMsOf(worker.pid) - cpuBefore) / targets.length;
    const counts = stack.sim.requests.counts();
    figures.requestsPerCluster = { aws: sum(counts.aws) / targets.length, kube: sum(counts.kube) / targets.length };
    const all = [...Object.entries(counts.aws), ...Object.entries(counts.kube)].sort((a, b) => b[1] - a[1]);
    // The top ten, and always the two reads issue 30 cut (reused access answers and add-on catalogues), even once they are rare.
    const shown = [...all.slice(0, 10), ...all.slice(10).filter(([what]) => WATCHED_REQUESTS.includes(what)), ...WATCHED_REQUESTS.filter((what) => !all.some(([seen]) => seen === what)).map((what) => [what, 0] as [string, number])];
    figures.topRequests = shown.map(([what, n]) => `${what} ${(n / targets.length).toFixed(1)}`);
    figures.slackWritesPerCluster = (slackWrites(stack.fake.messages(CHANNEL)) - writesBefore) / targets.length;
    const checks = await checkThreads(stack, CHANNEL, targets);
    figures.succeeded = checks.succeeded;
    figures.problems = [...checks.notOnce.map((x) => `UpdateClusterVersion ${x}`), ...checks.repeatedCalls, ...checks.doubled, ...checks.unfinished];
    if (!/succeeded/.test(figures.rolloutOutcome)) figures.problems.unshift(`the rollout did not succeed: ${figures.rolloutOutcome}`);
    const links = parent()?.replies.filter((r) => / started \(job `u/.test(r.text)).length ?? 0;
    if (links !== targets.length) figures.problems.push(`${links} of ${targets.length} starts linked from the rollout's thread`);
  } finally {
    gates.stop();
    await worker?.stop(10_000).catch(() => undefined);
    await stack.close();
    bundle.remove();
    figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return figures;
}

/** Posts and edits the fake Slack took in the channel (each message's versions: the post, then one per edit). */
function slackWrites(messages: FakeMessage[]): number {
  return messages.reduce((n, m) => n + Math.max(1, m.versions.length) + slackWrites(m.replies), 0);
}

export async function p8Rollout(ctx: BenchContext): Promise<Figure[]> {
  // The e2e stack reads the Redis it uses (and removes its keys from) from REDIS_URL when its module loads.
  process.env.REDIS_URL = ctx.redisUrl;
  const f = await runRollout({ clusters: CLUSTERS, wave: WAVE, maxParallel: MAX_PARALLEL, speed: SPEED, pollSeconds: POLL_SECONDS, timeoutMs: TIMEOUT_MS, log: (line) => process.stdout.write(`${line}\n`) });
  const met = f.problems.length === 0 && f.succeeded === f.clusters && f.peakRssMb <= RSS_GOAL_MB;
  const tier3Minutes = (f.slackWritesPerCluster * f.clusters) / 50;
  process.stdout.write(
    `P8 ${f.clusters} clusters, ${f.waves} waves (${f.waveSeconds.join(' s, ')} s), ${f.seconds} s in all; ${f.rolloutOutcome}\n` +
      `  worker peak RSS ${f.peakRssMb.toFixed(0)} MB (${f.idleRssMb.toFixed(0)} MB once ready, before the rollout); per cluster: worker CPU ${f.workerCpuMsPerCluster.toFixed(0)} ms, requests ${f.requestsPerCluster.aws.toFixed(1)} AWS + ${f.requestsPerCluster.kube.toFixed(1)} Kubernetes, Slack writes ${f.slackWritesPerCluster.toFixed(1)} (at Slack's real limits ≥ ${tier3Minutes.toFixed(0)} min of writes for the whole rollout in one workspace)\n` +
      `  most frequent requests per cluster: ${f.topRequests.join(', ')}\n` +
      (f.problems.length ? `  not correct (${f.problems.length}):\n${f.problems.slice(0, 10).map((p) => `    ${p}`).join('\n')}\n` : ''),
  );
  const value = `${f.succeeded}/${f.clusters} threads correct in ${f.seconds} s (${f.waves} waves, --max-parallel ${MAX_PARALLEL}); worker peak RSS ${f.peakRssMb.toFixed(0)} MB; per cluster ${f.workerCpuMsPerCluster.toFixed(0)} ms worker CPU, ${(f.requestsPerCluster.aws + f.requestsPerCluster.kube).toFixed(1)} requests` +
    (f.problems.length ? `; ${f.problems.length} problems: ${f.problems.slice(0, 2).join('; ')}` : '');
  return [{ id: 'P8', name: `rollout of ${f.clusters} clusters, waves of ${WAVE}, one worker`, value, goal: P8_GOAL, baseline: '—', met }];
}
