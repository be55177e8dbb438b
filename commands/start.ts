import { recordAudit } from '../src/audit/record-audit.js';
import { findCluster, type ClusterConfig } from '../src/config/clusters-config.js';
import { describeWindow, isWithinWindow, nextWindowOpening } from '../src/domain/maintenance-window.js';
import { compareMinor, formatMinor, hopsBetween, minorDistance, parseMinor, type MinorVersion } from '../src/domain/minor-version.js';
import { rehearsalProblem } from '../src/planning/planner/plan-hash.js';
import type { UpgradePlan } from '../src/ports/upgrade-plan.js';
import type { JobSummary } from '../src/ports/upgrade-control.js';
import type { SnapshotSources } from '../src/cluster-reader/collect-snapshot.js';
import { readAndPlan } from '../src/cluster-reader/read-and-plan.js';
import { planReadTimeoutMs } from './plan.js';
import { attempt } from './routing/command-failure.js';
import type { CommandContext, CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { COMMAND } from './routing/command-usage.js';
import { readArgs } from './routing/parse-command.js';
import { threadLink } from './routing/thread-link.js';
import { fallbackText, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';

/**
 * `/eks-upgrade start <cluster> --to <minor> [--dry-run]`: checks the target against the cluster's version and what
 * EKS offers, reads the cluster and builds the same plan `plan` shows, then hands that plan to the engine, which runs
 * exactly its steps (one hop per minor: EKS moves the control plane one minor per update). The router has already
 * checked the cluster, channel and requester.
 */
export const startCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('start', context.args);
  const cluster = findCluster(deps.config, command.target!)!;
  const target = parseMinor(command.to!)!;
  const eks = deps.eks({ region: cluster.region, roleArn: cluster.roleArn });

  const described = await attempt(`DescribeCluster for ${cluster.name}`, () => eks.describeCluster(cluster.name));
  const current = parseMinor(described.version ?? '');
  if (!current) throw new CommandRejected(`EKS reports no usable version for ${cluster.name} (${described.version ?? 'none'}); try again once it is ACTIVE.`);
  const offered = (await attempt('DescribeClusterVersions', () => eks.describeClusterVersions()))
    .map((info) => parseMinor(info.clusterVersion ?? ''))
    .filter((version): version is MinorVersion => version !== undefined)
    .sort(compareMinor);
  const problem = targetProblem(cluster.name, current, target, offered) ?? windowProblem(cluster, deps.clock.now(), command.dryRun);
  if (problem) throw new CommandRejected(problem);

  const from = formatMinor(current);
  const to = formatMinor(target);
  // A running upgrade is answered at once, before the cluster is read for a plan that would not be used.
  const running = await deps.control.findActive(cluster.name);
  if (running) throw new CommandRejected(alreadyRunning(running));
  const plan = await planFor(context.deps, cluster, from, to);
  if (cluster.requireRehearsalHours) {
    const last = await deps.rehearsals?.latest(cluster.name, to);
    const refused = rehearsalProblem(cluster.name, to, plan, last, cluster.requireRehearsalHours, deps.clock.now());
    if (refused) throw new CommandRejected(`${refused} Nothing was started.`);
  }
  const result = await deps.control.start(
    { cluster: cluster.name, region: cluster.region, to, requestedBy: context.userId, channel: context.channelId, dryRun: command.dryRun },
    from,
    plan,
  );
  if (!result.ok) throw new CommandRejected(alreadyRunning(result.job));
  deps.logger.info({ audit: 'start', user: context.userId, cluster: cluster.name, from, to, dryRun: command.dryRun, job: result.job.jobId }, 'upgrade started');
  const started = `${command.dryRun ? 'dry run ' : ''}${from} → ${to}`;
  await recordAudit(deps.audit, deps.logger, { at: deps.clock.now(), cluster: cluster.name, user: context.userId, action: 'start', outcome: 'accepted', job: result.job.jobId, detail: started, via: 'command' });
  const what = command.dryRun ? `Started a dry run of upgrading ${cluster.name}` : `Started upgrading ${cluster.name}`;
  const hops = hopsBetween(current, target).map(formatMinor);
  const route = hops.length > 1 ? ` in ${hops.length} hops (${[from, ...hops].join(' → ')}), each with its own approval gate` : '';
  const text = `${what} from ${from} to ${to}${route} (job \`${result.job.jobId}\`). Follow it in its ${threadLink(result.job.thread)}.`;
  await context.respond({ text: fallbackText(text), blocks: [mrkdwnSection(`:rocket: ${text}`)] });
};

/** Why `target` cannot be started from `current`, or undefined when it can. Pure, for tests. */
export function targetProblem(cluster: string, current: MinorVersion, target: MinorVersion, offered: MinorVersion[]): string | undefined {
  const distance = minorDistance(current, target);
  if (distance === 0) return `${cluster} is already at ${formatMinor(current)}.`;
  if (distance < 0) return `${cluster} is at ${formatMinor(current)}; EKS cannot downgrade a cluster, so ${formatMinor(target)} is not possible.`;
  if (!offered.some((version) => compareMinor(version, target) === 0)) {
    const [first, last] = [offered[0], offered[offered.length - 1]];
    const range = !first ? 'it lists no versions' : compareMinor(first, last) === 0 ? `it offers only ${formatMinor(first)}` : `it offers ${formatMinor(first)}–${formatMinor(last)}`;
    return `EKS does not offer Kubernetes ${formatMinor(target)} (${range}).`;
  }
  // Every hop is a version EKS must offer: a gap on the way (a minor no longer listed) makes the target unreachable.
  const gap = hopsBetween(current, target).find((hop) => !offered.some((version) => compareMinor(version, hop) === 0));
  if (gap) {
    return (
      `EKS does not offer Kubernetes ${formatMinor(gap)}, which an upgrade from ${formatMinor(current)} to ${formatMinor(target)} passes through ` +
      `(the control plane moves one minor at a time; it offers ${offered.map(formatMinor).join(', ')}).`
    );
  }
  return undefined;
}

/**
 * The plan the job will run: the cluster read now, planned with its clusters.yaml policy (as `plan` does). Exported
 * so that the engine's tests start their jobs exactly as this command does (test/integration/engine-harness.ts).
 */
export async function planFor(sources: SnapshotSources & { waivers?: CommandContext['deps']['waivers'] }, cluster: ClusterConfig, from: string, to: string): Promise<UpgradePlan> {
  // The read and plan of `plan` itself (src/cluster-reader/read-and-plan.ts): what the approver read is what the job runs.
  const reading = await attempt(`Reading ${cluster.name} to plan the upgrade`, () =>
    readAndPlan(sources, { name: cluster.name, region: cluster.region, roleArn: cluster.roleArn, config: cluster, from, to, waivers: sources.waivers, timeoutMs: planReadTimeoutMs(cluster) }),
  );
  if ('problem' in reading) throw new CommandRejected(`${reading.problem.replace(/\.$/, '')}. Nothing was started.`);
  return reading.plan;
}

/** Outside the cluster's maintenanceWindow (clusters.yaml) only a dry run may start; says when the window opens. */
export function windowProblem(cluster: ClusterConfig, now: number, dryRun: boolean): string | undefined {
  const window = cluster.maintenanceWindow;
  if (!window || dryRun || isWithinWindow(window, now)) return undefined;
  const opens = nextWindowOpening(window, now);
  const next = opens ? ` The next one opens ${new Date(opens).toUTCString().replace(':00 GMT', ' UTC')}.` : '';
  return (
    `${cluster.name} may only be upgraded in its maintenance window (${describeWindow(window)}).${next} ` +
    `\`${COMMAND} start ${cluster.name} --to <minor> --dry-run\` works at any time.`.replace('<minor>', '&lt;minor&gt;')
  );
}

export function alreadyRunning(job: JobSummary): string {
  return `An upgrade of ${job.cluster} is already running (${job.from} → ${job.to}, step ${job.currentStep}, ${job.state}): see its ${threadLink(job.thread)}.`;
}
