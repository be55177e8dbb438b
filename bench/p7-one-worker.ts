import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { answerEveryGate, readStepMessage, stepMessagesOf, summaryReply } from '../test/support/e2e-thread.js';
import type { BenchContext, Figure } from './kit/figures.js';
import { deployedNodeOptions, nodeArgsFrom, percentile, startSlackStack, type SlackStack } from './kit/processes.js';

/**
 * P7 one worker, many upgrades. BENCH_P7_UPGRADES (default 50) clusters of the generated `fleet` scenario, each with
 * a channel of its own, are upgraded to their next minor at once through Slack — the bot as deployed: one ROLE=web
 * process and ONE ROLE=worker process with WORKER_CONCURRENCY equal to the number of upgrades; the simulator in
 * its own process at BENCH_P7_SPEED (default 60) with AWS_POLL_SECONDS = BENCH_P7_POLL_SECONDS (default 1).
 * The worker runs with its Deployment's NODE_OPTIONS (the heap cap that fits its pod; BENCH_NODE_OPTIONS replaces it).
 * The driver answers every gate at once and scrapes the worker's /metrics every 2 s (prom-client's
 * nodejs_eventloop_lag_p99_seconds: the event-loop delay's p99 since the previous scrape) and reads its peak RSS
 * (VmHWM in /proc/<pid>/status). Baselines, same run: the same worker idle for 6 s before the commands, and a bare
 * Node process measuring its own loop delay while the upgrades run (the machine's load alone).
 * Correct: each thread posts its summary (Succeeded), every step message reads finished, and the simulator shows
 * the cluster and its node group at the target (no missed event).
 */
const UPGRADES = Number(process.env.BENCH_P7_UPGRADES ?? 50);
const SPEED = Number(process.env.BENCH_P7_SPEED ?? 60);
/** Default 1 s, the benches' usual poll: 15 × production's rate per real second (15 s), not 60 ×. */
const POLL_SECONDS = Number(process.env.BENCH_P7_POLL_SECONDS ?? 1);
const SCRAPE_MS = 2_000;
/**
 * BENCH_P7_NODES > 0: upgrade that many clusters of the `scale` scenario instead (`--clusters BENCH_P7_UPGRADES
 * --nodes BENCH_P7_NODES`, 3 pods a node, 5 NodePools drifting by Karpenter): a worker's heap with large clusters.
 */
const SCALE_NODES = Number(process.env.BENCH_P7_NODES ?? 0);

interface FleetCluster {
  name: string;
  version: string;
  status: string;
  unreachable: boolean;
  nodegroups: Array<{ version: string }>;
}

const nextMinor = (version: string) => `1.${Number(version.split('.')[1]) + 1}`;
const channelOf = (cluster: string) => `C0${cluster.replace(/\W/g, '').toUpperCase()}`;

/** Healthy clusters only (the fleet breaks some on purpose: unreachable, FAILED, node groups two minors behind). */
async function pickClusters(simUrl: string): Promise<FleetCluster[]> {
  const state = (await (await fetch(`${simUrl}/_sim/state`)).json()) as { offeredVersions: string[]; clusters: FleetCluster[] };
  const healthy = state.clusters.filter((c) => c.status === 'ACTIVE' && !c.unreachable && state.offeredVersions.includes(nextMinor(c.version)) && c.nodegroups.every((ng) => ng.version === c.version));
  if (healthy.length < UPGRADES) throw new Error(`the fleet has ${healthy.length} healthy clusters, fewer than ${UPGRADES}`);
  return healthy.slice(0, UPGRADES);
}

interface Sample {
  loopP99: number;
  rss: number;
  /** Live JavaScript heap: tells data the worker holds from memory V8 keeps but has not handed back. */
  heapUsed: number;
}

async function scrape(port: number): Promise<Sample> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { loopP99: value('nodejs_eventloop_lag_p99_seconds') * 1000, rss: value('process_resident_memory_bytes') / 2 ** 20, heapUsed: value('nodejs_heap_size_used_bytes') / 2 ** 20 };
}

function sampleFor(stack: SlackStack, ms: number): { samples: Sample[]; stop(): void } {
  const samples: Sample[] = [];
  const timer = setInterval(() => void scrape(stack.worker.port).then((s) => samples.push(s), () => undefined), SCRAPE_MS);
  if (ms > 0) setTimeout(() => clearInterval(timer), ms);
  return { samples, stop: () => clearInterval(timer) };
}

/**
 * A bare Node process beside the worker that only measures its own event-loop delay, p99 per scrape window: what
 * the machine's load alone does to a loop that has nothing to do (a shared 2-core machine starves any process).
 */
function bareLoopProbe(): { samples: number[]; stop(): void } {
  const samples: number[] = [];
  const script = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable(); setInterval(() => { console.log(h.percentile(99) / 1e6); h.reset(); }, ${SCRAPE_MS});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.on('data', (chunk: Buffer) => samples.push(...chunk.toString().split('\n').filter(Boolean).map(Number)));
  return { samples, stop: () => void child.kill() };
}

const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

export async function p7OneWorker(ctx: BenchContext): Promise<Figure[]> {
  const pollSeconds = POLL_SECONDS;
  // Enough clusters that UPGRADES of them are healthy (about three in four are).
  const fleetSize = Math.ceil(UPGRADES * 1.5) + 5;
  let clusters: FleetCluster[] = [];
  const stack = await startSlackStack({
    name: 'p7',
    simArgs: SCALE_NODES > 0
      ? ['--scenario', 'scale', '--clusters', String(UPGRADES), '--nodes', String(SCALE_NODES), '--pools', '5', '--speed', String(SPEED)]
      : ['--scenario', 'fleet', '--clusters', String(fleetSize), '--speed', String(SPEED)],
    clustersYaml: async (sim) => {
      clusters = await pickClusters(sim.url);
      return `clusters:\n${clusters.map((c) => `  - { name: ${c.name}, region: us-west-2, channels: [${channelOf(c.name)}], requesters: [U0REQ], approvers: [U0APP], twoPersonRule: false }\n`).join('')}`;
    },
    redisUrl: ctx.redisUrl,
    env: { AWS_POLL_SECONDS: String(pollSeconds) },
    // The bot's own chat.update budget (Tier 3, 50 a minute) runs at the same speed as the fake's buckets below.
    workerEnv: { WORKER_CONCURRENCY: String(UPGRADES), SLACK_EDITS_PER_MINUTE: String(50 * SPEED) },
    // Slack's Tier 3 allows about 50 chat.update a minute in the whole workspace; fifty upgrades that each take a
    // simulated hour in a real minute may make an hour's worth of them (the fake's buckets refill at the speed).
    rateLimitSpeed: SPEED,
    // BENCH_P7_PROFILE=<dir>: the worker writes a CPU profile there when it stops (open it in Chrome DevTools).
    // BENCH_P7_NODE_ARGS: Node flags for the worker (e.g. `--heapsnapshot-signal=SIGUSR2`, `--max-old-space-size=…`).
    workerEntry: [
      ...(process.env.BENCH_P7_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_P7_PROFILE}`] : []),
      ...nodeArgsFrom('BENCH_P7_NODE_ARGS'),
      'bin/eks-upgrade-bot.cjs',
    ],
  });
  // Everything that samples or answers stops however the run ends (a probe left running keeps the bench alive).
  const stoppers: Array<{ stop(): void }> = [];
  // With `--trace-gc` in BENCH_P7_NODE_ARGS: the heap after each full collection (V8 prints "Mark-Compact a (b) ->
  // c (d) MB"), the largest of which bounds what the worker really holds (the RSS peak also counts garbage).
  let liveAfterFullGc = 0;
  let partial = '';
  stack.worker.process.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const match of lines.join('\n').matchAll(/Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g)) liveAfterFullGc = Math.max(liveAfterFullGc, Number(match[1]));
  });
  try {
    const { fake } = stack;
    await scrape(stack.worker.port); // resets the window: start-up is not idle time
    const idle = sampleFor(stack, 6_000);
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    const idleRss = peakRssMb(stack.worker.process.pid!);

    const busy = sampleFor(stack, 0);
    const bare = bareLoopProbe();
    stoppers.push(busy, bare);
    const started = Date.now();
    for (const c of clusters) stoppers.push(answerEveryGate(fake, channelOf(c.name), 'U0APP'));
    // Five commands in flight at a time: the upgrades run at once, but the acks are P1's business, not this one's.
    const queue = [...clusters];
    let unacked = 0;
    await Promise.all(Array.from({ length: 5 }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const ack = await fake.sendSlashCommand({ text: `start ${c.name} --to ${nextMinor(c.version)}`, userId: 'U0REQ', channelId: channelOf(c.name) });
        if (ack.status !== 200) unacked++;
      }
    }));
    if (unacked) process.stdout.write(`P7 ${unacked} start commands were not acknowledged within Slack's 3 s\n`);
    const timeoutMs = Number(process.env.BENCH_P7_TIMEOUT_S ?? 600) * 1000;
    await fake.waitFor((f) => clusters.every((c) => summaryReply(f, channelOf(c.name))), { timeoutMs }).catch(() => undefined);
    const wallMs = Date.now() - started;
    busy.stop();
    bare.stop();
    const peak = peakRssMb(stack.worker.process.pid!);

    const state = (await (await fetch(`${stack.sim.url}/_sim/state`)).json()) as { clusters: FleetCluster[] };
    const wrong: string[] = [];
    for (const c of clusters) {
      const channel = channelOf(c.name);
      const summary = summaryReply(fake, channel);
      const steps = stepMessagesOf(fake, channel).map(readStepMessage);
      const unfinished = steps.filter((s) => s?.state !== 'finished').map((s) => s?.title ?? '(unreadable)');
      const after = state.clusters.find((s) => s.name === c.name);
      const target = nextMinor(c.version);
      if (!summary) wrong.push(`${c.name}: no summary`);
      else if (!/Succeeded/.test(summary.text)) wrong.push(`${c.name}: ${summary.text.split('\n')[0]}`);
      else if (steps.length === 0 || unfinished.length) wrong.push(`${c.name}: steps not finished: ${unfinished.join(', ') || 'none shown'}`);
      else if (after?.version !== target || after.nodegroups.some((ng) => ng.version !== target)) wrong.push(`${c.name}: the simulator shows ${after?.version} / node groups ${after?.nodegroups.map((ng) => ng.version).join(',')}`);
    }
    const loop = busy.samples.map((s) => s.loopP99);
    const idleLoop = idle.samples.map((s) => s.loopP99);
    const worstLoop = Math.max(...loop);
    process.stdout.write(
      `P7 ${clusters.length} upgrades in ${(wallMs / 1000).toFixed(0)} s; worker loop p99 per ${SCRAPE_MS / 1000} s window: median ${percentile(loop, 50).toFixed(0)} ms, p90 ${percentile(loop, 90).toFixed(0)} ms, worst ${worstLoop.toFixed(0)} ms; RSS now ${busy.samples.at(-1)?.rss.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; live heap max ${Math.max(...busy.samples.map((s) => s.heapUsed)).toFixed(0)} MB (idle ${Math.max(...idle.samples.map((s) => s.heapUsed)).toFixed(0)} MB)${liveAfterFullGc ? `; heap after a full GC max ${liveAfterFullGc.toFixed(0)} MB` : ''}\n  worker loop p99 per window: ${loop.map((v) => v.toFixed(0)).join(' ')}\n  bare loop p99 per window:   ${bare.samples.map((v) => v.toFixed(0)).join(' ')}\n` +
        (wrong.length ? `  not correct:\n${wrong.slice(0, 10).map((w) => `    ${w}`).join('\n')}\n` : ''),
    );
    return [
      {
        id: 'P7',
        name: `${clusters.length} upgrades at once (${SCALE_NODES > 0 ? `scale, ${SCALE_NODES} nodes each` : 'fleet'}, speed ${SPEED}, poll ${pollSeconds.toFixed(2)} s), one worker process (NODE_OPTIONS ${deployedNodeOptions('worker') || 'none'})`,
        value: `peak RSS ${peak.toFixed(0)} MB; loop delay p99 worst ${worstLoop.toFixed(0)} ms (median window ${percentile(loop, 50).toFixed(0)} ms); ${clusters.length - wrong.length}/${clusters.length} threads correct in ${(wallMs / 1000).toFixed(0)} s`,
        goal: 'RSS ≤ 300 MB, loop p99 ≤ 100 ms, every thread correct',
        baseline: `idle worker: RSS ${idleRss.toFixed(0)} MB, loop p99 worst ${Math.max(...idleLoop).toFixed(0)} ms; a bare Node loop during the run: p99 worst ${Math.max(...bare.samples).toFixed(0)} ms (median window ${percentile(bare.samples, 50).toFixed(0)} ms)`,
        met: peak <= 300 && worstLoop <= 100 && wrong.length === 0,
      },
    ];
  } finally {
    for (const stopper of stoppers) stopper.stop();
    await stack.stop();
  }
}
