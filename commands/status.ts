/**
 * `/eks-upgrade status [<cluster> | --all]`: one card per cluster — versions, support, nodes by compute type with
 * kubelet skew, add-ons against the current and next minor, insights, the running job. `--all` (or no cluster)
 * reads every cluster this channel may use as rows, at most STATUS_CONCURRENCY of one account and Region at a time
 * and 20 s each: a cluster that cannot be read is an error row, never a failed command (a single named cluster EKS
 * cannot describe fails the command with a sentence).
 * The router has already checked the cluster and the channel.
 */

import { findCluster } from '../src/config/clusters-config.js';
import { BLOCK_LIMITS, fallbackText, listNames, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';
import { renderStatusMessages } from '../src/report/blocks/render-status-blocks.js';
import type { BotDeps } from '../src/ports/bot-deps.js';
import type { ActiveJobStatus, ClusterStatus } from '../src/report/cluster-status.js';
import { readGuardStatus } from '../src/cluster-reader/read-guard-status.js';
import { readKeyOf } from '../src/cluster-reader/shared-reads.js';
import { collectStatuses, DEFAULT_CLUSTER_TIMEOUT_MS, DEFAULT_STATUS_CONCURRENCY } from '../src/cluster-reader/collect-statuses.js';
import { clustersVisibleFrom, type CommandHandler } from './routing/command-context.js';
import { attempt } from './routing/command-failure.js';
import { readArgs } from './routing/parse-command.js';
import { threadPermalink } from './routing/thread-link.js';

export const statusCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('status', context.args);
  const clusters = command.target ? [findCluster(deps.config, command.target)!] : clustersVisibleFrom(deps, context.channelId);
  const read = async () => {
    if (command.target) {
      // One cluster that EKS will not even describe is a failed command (a sentence with the fix), not an empty card.
      const [cluster] = clusters;
      await attempt(`DescribeCluster for ${cluster.name}`, () => deps.eks({ region: cluster.region, roleArn: cluster.roleArn }).describeCluster(cluster.name));
    }
    const statuses = await collectStatuses(
      deps,
      clusters.map((cluster) => ({ name: cluster.name, region: cluster.region, roleArn: cluster.roleArn })),
      { concurrency: deps.statusConcurrency ?? DEFAULT_STATUS_CONCURRENCY, timeoutMs: DEFAULT_CLUSTER_TIMEOUT_MS, findActive: (name) => activeJobOf(deps, name) },
    );
    // One cluster's card shows its guards' last evaluations, as the jobs and soaks recorded them (never read here).
    if (command.target && !statuses[0].error) {
      const guards = await readGuardStatus(clusters[0], deps.guardEvaluations, 'This bot keeps no record of guard evaluations (no Redis for them), so the guards\' last states cannot be shown.');
      if (guards) statuses[0].guards = guards;
    }
    return statuses;
  };
  // Equal status commands asked at once (a channel during an incident) share one read (src/ports/shared-reads.ts).
  const key = `status|${command.target ? 'card' : 'rows'}|${clusters.map(readKeyOf).join(',')}`;
  const statuses: readonly ClusterStatus[] = deps.sharedReads ? await deps.sharedReads.share(key, read) : await read();
  // response_url takes 5 posts per command; a fleet too big for 4 messages ends with a line saying what is left.
  for (const message of renderStatusMessages(statuses, { maxMessages: 4 })) await context.respond(message);
  // The fifth response_url post: which of these clusters belong to a running rollout (docs/fleet.md).
  const marks: string[] = [];
  for (const rollout of (await deps.rollouts?.list(20).catch(() => [])) ?? []) {
    if (!['gate', 'running', 'soaking'].includes(rollout.state)) continue;
    const members = clusters.filter((cluster) => rollout.waves.some((wave) => wave.clusters.includes(cluster.name))).map((cluster) => `*${cluster.name}*`);
    if (members.length > 0) {
      const state = rollout.state === 'gate' ? 'waiting for an approver' : rollout.state;
      marks.push(`:ocean: In rollout \`${rollout.id}\` to ${rollout.to} (wave ${rollout.wave + 1} of ${rollout.waves.length}, ${state}): ${listNames(members, { where: "the rollout's thread lists them all" })}`);
    }
  }
  if (marks.length > 0) {
    // One section per rollout line, as many as fit one message; a rollout line names at most 10 clusters.
    const blocks = marks.slice(0, BLOCK_LIMITS.blocksPerMessage - 1).map((mark) => mrkdwnSection(mark));
    if (marks.length > blocks.length) blocks.push(mrkdwnSection(`…and ${marks.length - blocks.length} more rollouts.`));
    await context.respond({ text: fallbackText(marks.join('\n').replace(/\*/g, '')), blocks });
  }
};

/** The cluster's running upgrade job as the card shows it: engine state and a link to its thread. */
export async function activeJobOf(deps: BotDeps, cluster: string): Promise<ActiveJobStatus | undefined> {
  const job = await deps.control.findActive(cluster);
  if (!job) return undefined;
  return { jobId: job.jobId, state: job.state, from: job.from, to: job.to, currentStep: job.currentStep, threadUrl: threadPermalink(job.thread) };
}
