import { DEFAULT_POST_BURST } from '../src/slack/thread/slack-thread-port.js';
import { postsPastBucket } from '../test/support/post-bucket.js';
import { startE2eStack } from '../test/support/e2e-stack.js';
import { answerGatesUntilSummary, repliesOf } from '../test/support/e2e-thread.js';
import { mostInWindow } from './kit/processes.js';

/**
 * One Slack-driven upgrade 1.30 → 1.31 of the generated `scale` cluster (BENCH_SCALE_NODES Karpenter nodes in
 * BENCH_SCALE_POOLS NodePools, optional BENCH_SCALE_MNG managed-node-group nodes), gates answered, run IN ONE
 * PROCESS (bot, simulator and fake Slack share it: the counts below do not depend on that). P3 reads its request
 * counts (GET /_sim/requests, reset when the command is sent) and P5 its thread; both share this one run.
 */
export interface ScaleRun {
  nodes: number;
  pools: number;
  mngNodes: number;
  wallMs: number;
  summary: string;
  counts: Counts;
  /**
   * The same counts over the drift alone: from the control-plane approval (an alias class drifts its nodes as soon
   * as the control plane moves) until the thread shows the last data-plane step (Karpenter or node groups) finished.
   * The plan, preflight and verify reads (three snapshot lists of every kind, paged) are outside it.
   */
  drift: Counts;
  driftMs: number;
  threadPosts: number;
  channelPosts: number;
  maxPostsPerSecond: number;
  /** Posts that found the channel's bucket (DEFAULT_POST_BURST, one a second) empty. */
  postsPastBucket: number;
  maxEditsPerMinute: number;
  pollSeconds: number;
}

type Counts = { aws: Record<string, number>; kube: Record<string, number> };

let cached: Promise<ScaleRun> | undefined;

function minus(after: Counts, before: Counts): Counts {
  const diff = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(Object.entries(a).map(([key, n]) => [key, n - (b[key] ?? 0)]).filter(([, n]) => (n as number) > 0));
  return { aws: diff(after.aws, before.aws), kube: diff(after.kube, before.kube) };
}

export function scaleUpgrade(redisUrl: string): Promise<ScaleRun> {
  cached ??= run(redisUrl);
  return cached;
}

async function run(redisUrl: string): Promise<ScaleRun> {
  const nodes = Number(process.env.BENCH_SCALE_NODES ?? 500);
  const pools = Number(process.env.BENCH_SCALE_POOLS ?? 5);
  const mngNodes = Number(process.env.BENCH_SCALE_MNG ?? 0);
  const pollSeconds = 2;
  const channel = 'C0SCALE';
  const stack = await startE2eStack({
    scenario: 'scale',
    scale: { nodes, pools, mngNodes },
    speed: Number(process.env.BENCH_SCALE_SPEED ?? 600),
    pollSeconds,
    redisUrl,
    // The product's own pacing (one Slack call per second per channel): P5 counts posts, which coalescing at that pace shapes.
    threadPace: 'slack',
    clusters: [{ name: 'scale', region: 'us-west-2', channels: [channel], requesters: ['U0REQ'], approvers: ['U0APP'] }],
  });
  try {
    await fetch(`${stack.sim.url}/_sim/requests`, { method: 'DELETE' });
    const readCounts = async () => (await (await fetch(`${stack.sim.url}/_sim/requests`)).json()) as Counts;
    const started = performance.now();
    // The drift's window: opened when the control plane's gate is answered, closed at the change of the thread that
    // shows the last data-plane step finished (the fake's change events, not a poll: posts go out in bursts, so that
    // edit, the verify step's post and the summary can arrive within milliseconds of each other).
    let driftStart: { at: number; counts: Promise<Counts> } | undefined;
    let driftEnd: { at: number; counts: Promise<Counts> } | undefined;
    const dataPlane = /^✅ (Karpenter nodes|managed node groups|Managed node groups|node groups)[^\n]* finished/i;
    const timeoutMs = Number(process.env.BENCH_SCALE_TIMEOUT_S ?? 600) * 1000;
    const closing = stack.fake.waitFor((fake) => {
      if (!driftStart) return false;
      const finished = repliesOf(fake, channel).filter((m) => dataPlane.test(m.text)).length;
      const planned = repliesOf(fake, channel).filter((m) => /^(▶️|✅) (Karpenter nodes|managed node groups|Managed node groups|node groups)/i.test(m.text)).length;
      return planned > 0 && finished === planned;
    }, { timeoutMs }).then(() => {
      driftEnd = { at: performance.now(), counts: readCounts() };
    }, () => undefined);
    await stack.fake.sendSlashCommand({ text: 'start scale --to 1.31', userId: 'U0REQ', channelId: channel });
    const { summary } = await answerGatesUntilSummary(stack.fake, {
      channel,
      approver: 'U0APP',
      timeoutMs,
      decide: (gate) => {
        if (!driftStart && /control-plane/.test(gate.gateId)) driftStart = { at: performance.now(), counts: readCounts() };
        return gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'benchmark cluster' };
      },
    });
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    const wallMs = performance.now() - started;
    const counts = await readCounts();
    const drift = driftStart && driftEnd ? minus(await driftEnd.counts, await driftStart.counts) : counts;
    const driftMs = driftStart && driftEnd ? driftEnd.at - driftStart.at : performance.now() - started;
    const posts = stack.fake.okCalls('chat.postMessage').filter((call) => call.body.channel === channel);
    const threadPosts = posts.filter((call) => call.body.thread_ts !== undefined).length;
    // What the thread posts say (first line each, repeats counted), so a count over the goal points at its cause.
    const kinds = new Map<string, number>();
    for (const call of posts) {
      const line = String(call.body.text ?? '').split('\n')[0].replace(/\d+/g, '#').slice(0, 70);
      kinds.set(line, (kinds.get(line) ?? 0) + 1);
    }
    process.stdout.write(`P5 posts by first line (digits as #):\n${[...kinds].sort((a, b) => b[1] - a[1]).map(([line, n]) => `  ${n} × ${line}`).join('\n')}\n`);
    // Slack's limits, which the outbox paces to: the most posts Slack took for the channel in any second, and the most
    // edits in any minute (chat.update is Tier 3, per workspace; posts and edits are limited apart).
    const maxPostsPerSecond = mostInWindow(posts.map((c) => c.at), 1000);
    const pastBucket = postsPastBucket(posts.map((c) => c.at), DEFAULT_POST_BURST, 1000).length;
    const maxEditsPerMinute = mostInWindow(stack.fake.okCalls('chat.update').filter((call) => call.body.channel === channel).map((c) => c.at), 60_000);
    return { nodes, pools, mngNodes, wallMs, summary: summary.text.split('\n')[0], counts, drift, driftMs, threadPosts, channelPosts: posts.length, maxPostsPerSecond, postsPastBucket: pastBucket, maxEditsPerMinute, pollSeconds };
  } finally {
    await stack.close();
  }
}
