/**
 * `/eks-upgrade plan <cluster> [--to <minor>]`: preflight findings and the hop-by-hop steps, read-only. The target
 * defaults to the next minor; a downgrade, the current version or a target EKS does not offer is refused with a
 * sentence. The plan goes out as up to 3 ephemeral messages; whatever does not fit is counted and the CLI command
 * that prints it all is named.
 */

import { DEFAULT_CHECK_SETTINGS, findCluster, type ClusterConfig } from '../src/config/clusters-config.js';
import { readRollback, RollbackReadError } from '../src/cluster-reader/rollback-reads.js';
import { policyFromConfig } from '../src/planning/plan-policy.js';
import { minorsBetween, nextMinorOf } from '../src/planning/upgrade-path.js';
import { renderPlanMessages } from '../src/report/blocks/render-plan-blocks.js';
import { withDeadline } from '../src/cluster-reader/bounded.js';
import { readAndPlan } from '../src/cluster-reader/read-and-plan.js';
import { readKeyOf } from '../src/cluster-reader/shared-reads.js';
import { readWaiversForPlan } from '../src/waivers/store/read-waivers.js';
import { attempt } from './routing/command-failure.js';
import type { CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { readArgs } from './routing/parse-command.js';

export const PLAN_READ_TIMEOUT_MS = 60_000;

/**
 * The deadline of a plan's read (plan, start): readAndPlan waits at most half its deadline for an insights refresh,
 * and EKS takes about a minute for one, so a bare PLAN_READ_TIMEOUT_MS (30 s of waiting) would never see the refresh
 * finish. The deadline leaves the cluster's whole `checks.insightsRefreshWaitSeconds` for it, and PLAN_READ_TIMEOUT_MS
 * at least.
 */
export function planReadTimeoutMs(cluster: ClusterConfig | undefined): number {
  const waitMs = (cluster?.checks ?? DEFAULT_CHECK_SETTINGS).insightsRefreshWaitSeconds * 1000;
  return Math.max(PLAN_READ_TIMEOUT_MS, 2 * waitMs);
}

export const planCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('plan', context.args);
  const cluster = findCluster(deps.config, command.target!)!;
  const read = async () => {
    const described = await attempt(`DescribeCluster for ${cluster.name}`, () =>
      deps.eks({ region: cluster.region, roleArn: cluster.roleArn }).describeCluster(cluster.name),
    );
    if (command.rollback) return readRollbackPlan(deps, cluster);
    const current = described.version ?? '';
    const to = command.to ?? nextMinorOf(current);
    if (!to) throw new CommandRejected(`${cluster.name} reports version "${current}", which is not a Kubernetes minor; it cannot be planned.`);
    if (minorsBetween(current, to) <= 0) {
      throw new CommandRejected(
        minorsBetween(current, to) === 0
          ? `${cluster.name} is already at ${current}; give \`--to\` a newer minor.`
          : `${to} is older than ${cluster.name}'s ${current}: EKS upgrades only move forward.`,
      );
    }
    const reading = await readAndPlan(deps, { name: cluster.name, region: cluster.region, roleArn: cluster.roleArn, config: cluster, from: current, to, waivers: deps.waivers, timeoutMs: planReadTimeoutMs(cluster) });
    if ('problem' in reading) throw new CommandRejected(reading.problem);
    return reading.plan;
  };
  // Equal plans asked at once share one read (src/ports/shared-reads.ts), a refused one its sentence too.
  const key = `plan|${readKeyOf(cluster)}|${command.rollback ? 'rollback' : `to ${command.to ?? 'next'}`}`;
  const plan = deps.sharedReads ? await deps.sharedReads.share(key, read) : await read();
  // A rollback plan has no waiver buttons: waivers are for the upgrade's findings.
  for (const message of renderPlanMessages(plan, { maxMessages: 3, waiveButtons: !command.rollback && deps.waivers !== undefined })) await context.respond(message);
};

/** `plan <cluster> --rollback`: the rollback plan (issue 10), read-only, with its RBK findings. */
async function readRollbackPlan(deps: Parameters<CommandHandler>[0]['deps'], cluster: ClusterConfig) {
  const slack = await readWaiversForPlan(deps.waivers, cluster.name);
  let reading;
  try {
    reading = await withDeadline(
      readRollback(deps, cluster, { policy: policyFromConfig(cluster, slack.waivers, slack.note), maxInsightsWaitMs: planReadTimeoutMs(cluster) / 2 }),
      planReadTimeoutMs(cluster),
      `Reading ${cluster.name}`,
      deps.clock,
    );
  } catch (error) {
    if (error instanceof RollbackReadError) throw new CommandRejected(error.message);
    throw error;
  }
  return reading.plan;
}
