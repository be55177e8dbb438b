import { DEFAULT_POST_BURST } from '../src/slack/thread/slack-thread-port.js';
import type { BenchContext, Figure } from './kit/figures.js';
import { scaleUpgrade } from './scale-upgrade.js';

/**
 * P5 posts per upgrade: chat.postMessage replies in the upgrade's thread during the same `scale` upgrade as P3
 * (one Slack-driven run), the most posts Slack took for the channel in any second and the most edits in any minute.
 * Goal: ≤ 30 + 1 per 50 nodes (≤ 40 for 500 nodes, issue 17's done-when), within Slack's limits: ≤ 1 post per
 * second per channel, ≤ 50 edits a minute (Tier 3).
 */
export async function p5Posts(ctx: BenchContext): Promise<Figure[]> {
  const run = await scaleUpgrade(ctx.redisUrl);
  const nodes = run.nodes + run.mngNodes;
  const allowed = Math.min(30 + Math.floor(nodes / 50), nodes >= 500 ? 40 : Infinity);
  return [
    {
      id: 'P5',
      name: `posts per upgrade, ${nodes}-node scale cluster`,
      value: `${run.threadPosts} thread posts (${run.channelPosts} in the channel); at most ${run.maxPostsPerSecond} posts in 1 s (${run.postsPastBucket} past a burst of ${DEFAULT_POST_BURST} and 1/s) and ${run.maxEditsPerMinute} edits in 60 s`,
      goal: `≤ ${allowed} posts; a burst of ${DEFAULT_POST_BURST} then 1 post/s per channel, ≤ 50 edits/min`,
      baseline: 'two-node demo: ≤ 15 (e2e slack-upgrade-flow)',
      met: run.threadPosts <= allowed && run.postsPastBucket === 0 && run.maxEditsPerMinute <= 50,
    },
  ];
}
