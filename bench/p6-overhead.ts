import { answerGatesUntilSummary, type OpenGate } from '../test/support/e2e-thread.js';
import type { BenchContext, Figure } from './kit/figures.js';
import { startSlackStack } from './kit/processes.js';

/**
 * P6 overhead. A Slack-driven upgrade of the two-node `demo` cluster 1.30 → 1.31, the bot in its web and worker
 * processes and the simulator in its own at BENCH_P6_SPEED (default 10: the 10-minute control-plane update takes
 * 60 s; at 60 the thread's 1 write per second, which does not scale with the speed, outweighs AWS's waits). The unavoidable waits are what AWS itself took — each update's start to end in the simulator's record
 * (GET /_sim/state: control plane, add-ons, the node group's rolling update with its drains), overlapping ones
 * counted once — over the speed. The bot's time is from sending the command to the summary reply reaching Slack,
 * less the time each gate card waited for its click (the driver clicks at once; that wait is a person's, not the
 * bot's). AWS_POLL_SECONDS is the production 15 s scaled by the speed, so polling costs what it would for real.
 * Goal: bot time / unavoidable waits ≤ 1.05.
 */
const SPEED = Number(process.env.BENCH_P6_SPEED ?? 10);
const CHANNEL = 'C0BENCH';
const CLUSTERS_YAML = `clusters:\n  - { name: demo, region: us-west-2, channels: [${CHANNEL}], requesters: [U0REQ], approvers: [U0APP], twoPersonRule: false }\n`;

interface SimUpdateState {
  type: string;
  status: string;
  scope: { nodegroupName?: string; addonName?: string };
  createdAt: string;
  endedAt?: string;
}

/** Total length of the union of [start, end] intervals. */
export function unionMs(intervals: Array<[number, number]>): number {
  let total = 0;
  let reach = -Infinity;
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}

export async function p6Overhead(ctx: BenchContext): Promise<Figure[]> {
  const pollSeconds = 15 / SPEED;
  const stack = await startSlackStack({
    name: 'p6',
    simArgs: ['--scenario', 'demo', '--speed', String(SPEED)],
    clustersYaml: CLUSTERS_YAML,
    redisUrl: ctx.redisUrl,
    env: { AWS_POLL_SECONDS: String(pollSeconds) },
  });
  try {
    const { fake } = stack;
    const sent = Date.now();
    const seen = new Map<string, number>();
    await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const { gates, summary } = await answerGatesUntilSummary(fake, {
      channel: CHANNEL,
      approver: 'U0APP',
      timeoutMs: 10 * 60_000,
      decide: (gate: OpenGate) => {
        seen.set(`${gate.gateId}:${gate.revision}`, Date.now());
        return gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'benchmark cluster' };
      },
    });
    const botWallMs = summary.postedAt - sent;
    if (process.env.BENCH_P6_TRACE) {
      // Every write Slack took, in order: where the bot's time went between the AWS waits.
      const writes = [...fake.okCalls('chat.postMessage'), ...fake.okCalls('chat.update')].sort((a, b) => a.at - b.at);
      for (const call of writes) process.stdout.write(`  +${((call.at - sent) / 1000).toFixed(2)} s ${call.method} ${String(call.body.text ?? '').split('\n')[0].slice(0, 90)}\n`);
    }
    // A gate waits on a person from the moment its buttons reach Slack until the click.
    const gateWaitMs = gates.reduce((sum, gate) => {
      const shownAt = gate.message.versions.find((v) => JSON.stringify(v.blocks ?? []).includes(`gate:${gate.jobId}:${gate.gateId}:${gate.revision}`))?.at ?? gate.message.postedAt;
      return sum + Math.max(0, (seen.get(`${gate.gateId}:${gate.revision}`) ?? shownAt) - shownAt);
    }, 0);
    const state = (await (await fetch(`${stack.sim.url}/_sim/state`)).json()) as { clusters: Array<{ name: string; updates: SimUpdateState[] }> };
    const updates = state.clusters.find((c) => c.name === 'demo')?.updates ?? [];
    const intervals = updates.filter((u) => u.endedAt).map((u): [number, number] => [Date.parse(u.createdAt), Date.parse(u.endedAt!)]);
    const unavoidableMs = unionMs(intervals) / SPEED;
    const botMs = botWallMs - gateWaitMs;
    const ratio = botMs / unavoidableMs;
    const kinds = updates.map((u) => `${u.scope.nodegroupName ?? u.scope.addonName ?? 'control plane'} ${((Date.parse(u.endedAt ?? u.createdAt) - Date.parse(u.createdAt)) / SPEED / 1000).toFixed(1)} s`);
    process.stdout.write(`P6 ${summary.text.split('\n')[0]}\n  AWS updates (wall at speed ${SPEED}): ${kinds.join(', ')}\n  command → summary ${(botWallMs / 1000).toFixed(1)} s, gate waits ${(gateWaitMs / 1000).toFixed(1)} s (${gates.length} gates)\n`);
    return [
      {
        id: 'P6',
        name: `overhead, two-node demo 1.30 → 1.31 at speed ${SPEED}, poll ${pollSeconds.toFixed(2)} s`,
        value: `${ratio.toFixed(3)} (${(botMs / 1000).toFixed(1)} s command → summary less ${(gateWaitMs / 1000).toFixed(1)} s at gates)`,
        goal: '≤ 1.05',
        baseline: `AWS's own update time ${(unavoidableMs / 1000).toFixed(1)} s (${updates.length} updates, overlaps once)`,
        met: /Succeeded/.test(summary.text) && ratio <= 1.05,
      },
    ];
  } finally {
    await stack.stop();
  }
}
