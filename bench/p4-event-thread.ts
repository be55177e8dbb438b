import { DEFAULT_POST_BURST } from '../src/slack/thread/slack-thread-port.js';
import { postsPastBucket } from '../test/support/post-bucket.js';
import { answerGatesUntilSummary } from '../test/support/e2e-thread.js';
import type { WallEvent } from '@eks-upgrade-bot/sim/services';
import type { BenchContext, Figure } from './kit/figures.js';
import { mostInWindow, percentile, startSlackStack } from './kit/processes.js';

/**
 * P4 event → thread. A Slack-driven 1.30 → 1.31 upgrade of the generated `scale` cluster (BENCH_P4_NODES Karpenter
 * nodes, default 60, in BENCH_P4_POOLS pools, default 3; its PDBs' 10% limit blocks some drains on the way), the bot
 * in its web and worker processes, the simulator in its own at BENCH_P4_SPEED (default 60). The simulator records
 * the wall-clock time of each NodeClaim it deletes and each Karpenter Event (GET /_sim/timeline); the fake Slack the
 * time it took each post and edit. Latency of a replacement: from the k-th NodeClaim deletion to the first write in
 * the channel reading "NodeClaims replaced ≥ k/…" (the step message or the status card) or the step finished.
 * Latency of a block: from Karpenter's first DisruptionBlocked/FailedDraining Event with that message on that node to
 * the notice post naming them. Goal: p95 ≤ 2 s within Slack's limits (at most one post a second in the channel, 50
 * edits a minute, no 429). Baseline, same run: the gap between consecutive writes in the channel.
 */
const NODES = Number(process.env.BENCH_P4_NODES ?? 60);
const POOLS = Number(process.env.BENCH_P4_POOLS ?? 3);
const SPEED = Number(process.env.BENCH_P4_SPEED ?? 60);
const CHANNEL = 'C0SCALE';

export async function p4EventThread(ctx: BenchContext): Promise<Figure[]> {
  const pollSeconds = Math.max(0.05, 15 / SPEED);
  const stack = await startSlackStack({
    name: 'p4',
    simArgs: ['--scenario', 'scale', '--nodes', String(NODES), '--pools', String(POOLS), '--speed', String(SPEED)],
    clustersYaml: `clusters:\n  - { name: scale, region: us-west-2, channels: [${CHANNEL}], requesters: [U0REQ], approvers: [U0APP], twoPersonRule: false }\n`,
    redisUrl: ctx.redisUrl,
    env: { AWS_POLL_SECONDS: String(pollSeconds) },
  });
  try {
    const { fake } = stack;
    await fetch(`${stack.sim.url}/_sim/timeline`, { method: 'DELETE' });
    const claims = (await (await fetch(`${stack.sim.url}/k8s/scale/apis/karpenter.sh/v1/nodeclaims`, { headers: { authorization: 'Bearer sim' } })).json()) as { items: Array<{ metadata: { name: string } }> };
    const oldClaims = new Set(claims.items.map((claim) => claim.metadata.name));
    const sent = Date.now();
    await fake.sendSlashCommand({ text: 'start scale --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const { summary } = await answerGatesUntilSummary(fake, {
      channel: CHANNEL,
      approver: 'U0APP',
      timeoutMs: Number(process.env.BENCH_P4_TIMEOUT_S ?? 600) * 1000,
      decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'benchmark cluster' }),
    });
    const { events } = (await (await fetch(`${stack.sim.url}/_sim/timeline?cluster=scale`)).json()) as { events: WallEvent[] };
    const writes = [...fake.okCalls('chat.postMessage'), ...fake.okCalls('chat.update')]
      .filter((call) => call.body.channel === CHANNEL && call.at >= sent)
      .map((call) => ({ at: call.at, method: call.method, text: String(call.body.text ?? '') }))
      .sort((a, b) => a.at - b.at);

    // Replacements: the k-th deletion is shown by the first later write reading replaced ≥ k (or the step finished).
    const shownCount = (text: string) => {
      // The Karpenter step's message once ✅ says every old NodeClaim is gone (its summary counts per pool).
      if (/^✅ .*NodeClaims replaced/su.test(text)) return Infinity;
      // "replaced k/N" counts from the Karpenter step's start: the NodeClaims Karpenter had already replaced by then
      // (it drifts them as soon as the control plane moves, while the add-ons update) are the old ones less N.
      const progress = /NodeClaims replaced (\d+)\/(\d+)/.exec(text);
      return progress ? Number(progress[1]) + Math.max(0, oldClaims.size - Number(progress[2])) : -1;
    };
    // Replacements are deletions of the NodeClaims there were before the upgrade, not of replacements themselves.
    const deletions = events.filter((e) => e.kind === 'nodeclaim-deleted' && oldClaims.has(e.object)).sort((a, b) => a.at - b.at);
    const replaced: number[] = [];
    let unshownReplacements = 0;
    deletions.forEach((event, i) => {
      const shown = writes.find((w) => w.at >= event.at && shownCount(w.text) >= i + 1);
      if (shown) replaced.push(shown.at - event.at);
      else unshownReplacements++;
    });

    // Blocks: each notice post, from the first Event it reports.
    const blockedEvents = events.filter((e) => e.kind === 'event' && (e.reason === 'DisruptionBlocked' || e.reason === 'FailedDraining'));
    const notices = writes.filter((w) => w.method === 'chat.postMessage' && /Karpenter cannot (drain|replace) /.test(w.text));
    const blocked: number[] = [];
    for (const notice of notices) {
      const reason = /cannot drain/.test(notice.text) ? 'FailedDraining' : 'DisruptionBlocked';
      const first = blockedEvents.find((e) => e.reason === reason && notice.text.includes(e.object.split('/')[1]) && notice.text.includes(e.message ?? '\u0000'));
      if (first) blocked.push(notice.at - first.at);
    }

    if (unshownReplacements) {
      // What the thread said of the replacements last, so a count that never reached the end points at its cause.
      const last = writes.filter((w) => shownCount(w.text) >= 0).slice(-3);
      process.stdout.write(`P4 ${unshownReplacements} replacements never shown; last deletion +${((deletions.at(-1)!.at - sent) / 1000).toFixed(1)} s; last writes counting them:\n${last.map((w) => `  +${((w.at - sent) / 1000).toFixed(1)} s ${w.text.split('\n')[0].slice(0, 140)}`).join('\n')}\n`);
    }
    const gaps = writes.slice(1).map((w, i) => w.at - writes[i].at);
    // Slack's limits, which the bot paces to: posts one per second per channel, chat.update 50 a minute (Tier 3).
    // Posts: a bucket of DEFAULT_POST_BURST refilling one a second ("1 per second", "short bursts >1 allowed").
    const postTimes = writes.filter((w) => w.method === 'chat.postMessage').map((w) => w.at);
    const maxPerSecond = mostInWindow(postTimes, 1000);
    const pastBucket = postsPastBucket(postTimes, DEFAULT_POST_BURST, 1000).length;
    const maxEditsPerMinute = mostInWindow(writes.filter((w) => w.method === 'chat.update').map((w) => w.at), 60_000);
    const refused = fake.calls.filter((call) => call.status === 429 && call.at >= sent).length;
    // BENCH_P4_TRACE=1: every write with its time since the command, and each deletion, to see what a late one waited for.
    if (process.env.BENCH_P4_TRACE === '1') {
      const lines = [
        ...writes.map((w) => ({ at: w.at, line: `${w.method === 'chat.update' ? 'edit' : 'post'} ${w.text.split('\n')[0].slice(0, 110)}` })),
        ...deletions.map((d, i) => ({ at: d.at, line: `   (deletion ${i + 1})` })),
      ].sort((a, b) => a.at - b.at);
      process.stdout.write(`${lines.map((l) => `  +${((l.at - sent) / 1000).toFixed(1)} s ${l.line}`).join('\n')}\n`);
    }
    const all = [...replaced, ...blocked];
    const p95 = percentile(all, 95);
    const fmt = (values: number[]) => (values.length ? `p50 ${(percentile(values, 50) / 1000).toFixed(1)} s, p95 ${(percentile(values, 95) / 1000).toFixed(1)} s, max ${(Math.max(...values) / 1000).toFixed(1)} s` : 'none');
    process.stdout.write(
      `P4 ${summary.text.split('\n')[0].slice(0, 100)}\n  ${deletions.length} NodeClaims deleted → ${fmt(replaced)}${unshownReplacements ? ` (${unshownReplacements} never shown)` : ''}\n` +
        `  ${blockedEvents.length} blocked Events, ${notices.length} notices → ${fmt(blocked)}\n  ${writes.length} writes in ${((writes.at(-1)!.at - sent) / 1000).toFixed(0)} s, at most ${maxPerSecond} posts in 1 s (${pastBucket} past a burst of ${DEFAULT_POST_BURST} and 1/s) and ${maxEditsPerMinute} edits in 60 s; ${refused} refused with 429\n`,
    );
    return [
      {
        id: 'P4',
        name: `event → thread, ${NODES}-node scale drift at speed ${SPEED} (${replaced.length} replacements, ${blocked.length} blocks)`,
        value: `p95 ${(p95 / 1000).toFixed(1)} s (replaced: ${fmt(replaced)}; blocked: ${fmt(blocked)}); ≤ ${maxPerSecond} posts/s, ${pastBucket} past the post bucket, ≤ ${maxEditsPerMinute} edits/min, ${refused} × 429`,
        goal: `p95 ≤ 2 s within Slack's limits: posts a burst of ${DEFAULT_POST_BURST} then 1/s per channel, ≤ 50 edits/min, no 429`,
        baseline: `gap between writes: p50 ${(percentile(gaps, 50) / 1000).toFixed(1)} s, p95 ${(percentile(gaps, 95) / 1000).toFixed(1)} s`,
        met: all.length > 0 && p95 <= 2000 && pastBucket === 0 && maxEditsPerMinute <= 50 && refused === 0 && unshownReplacements === 0,
      },
    ];
  } finally {
    await stack.stop();
  }
}
