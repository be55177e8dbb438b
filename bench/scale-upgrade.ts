import { startE2eStack } from '../test/support/e2e-stack.js';
import { answerGatesUntilSummary } from '../test/support/e2e-thread.js';

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
  counts: { aws: Record<string, number>; kube: Record<string, number> };
  threadPosts: number;
  channelPosts: number;
  maxPostsPerSecond: number;
  pollSeconds: number;
}

let cached: Promise<ScaleRun> | undefined;

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
    clusters: [{ name: 'scale', region: 'us-west-2', channels: [channel], requesters: ['U0REQ'], approvers: ['U0APP'] }],
  });
  try {
    await fetch(`${stack.sim.url}/_sim/requests`, { method: 'DELETE' });
    const started = performance.now();
    await stack.fake.sendSlashCommand({ text: 'start scale --to 1.31', userId: 'U0REQ', channelId: channel });
    const { summary } = await answerGatesUntilSummary(stack.fake, {
      channel,
      approver: 'U0APP',
      timeoutMs: Number(process.env.BENCH_SCALE_TIMEOUT_S ?? 600) * 1000,
      decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'benchmark cluster' }),
    });
    const wallMs = performance.now() - started;
    const counts = (await (await fetch(`${stack.sim.url}/_sim/requests`)).json()) as ScaleRun['counts'];
    const posts = stack.fake.okCalls('chat.postMessage').filter((call) => call.body.channel === channel);
    const threadPosts = posts.filter((call) => call.body.thread_ts !== undefined).length;
    // What the thread posts say (first line each, repeats counted), so a count over the goal points at its cause.
    const kinds = new Map<string, number>();
    for (const call of posts) {
      const line = String(call.body.text ?? '').split('\n')[0].replace(/\d+/g, '#').slice(0, 70);
      kinds.set(line, (kinds.get(line) ?? 0) + 1);
    }
    process.stdout.write(`P5 posts by first line (digits as #):\n${[...kinds].sort((a, b) => b[1] - a[1]).map(([line, n]) => `  ${n} × ${line}`).join('\n')}\n`);
    // The most posts and edits Slack took for the channel in any one-second window.
    const writes = [...posts, ...stack.fake.okCalls('chat.update').filter((call) => call.body.channel === channel)].map((c) => c.at).sort((a, b) => a - b);
    let maxPostsPerSecond = 0;
    for (let i = 0, j = 0; i < writes.length; i++) {
      while (writes[i] - writes[j] >= 1000) j++;
      maxPostsPerSecond = Math.max(maxPostsPerSecond, i - j + 1);
    }
    return { nodes, pools, mngNodes, wallMs, summary: summary.text.split('\n')[0], counts, threadPosts, channelPosts: posts.length, maxPostsPerSecond, pollSeconds };
  } finally {
    await stack.close();
  }
}
