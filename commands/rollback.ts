import { recordAudit } from '../src/audit/record-audit.js';
import { DEFAULT_ROLLBACK_TIMEOUT_MINUTES, findCluster } from '../src/config/clusters-config.js';
import { policyFromConfig } from '../src/planning/plan-policy.js';
import { formatFinding } from '../src/planning/checks/preflight-checks.js';
import { formatUtc } from '../src/planning/rollback-preflight.js';
import { withDeadline } from '../src/cluster-reader/bounded.js';
import { readRollback, RollbackReadError } from '../src/cluster-reader/rollback-reads.js';
import { readWaiversForPlan } from '../src/waivers/store/read-waivers.js';
import { attempt } from './routing/command-failure.js';
import type { CommandHandler } from './routing/command-context.js';
import { CommandRejected } from './routing/command-rejected.js';
import { readArgs } from './routing/parse-command.js';
import { planReadTimeoutMs } from './plan.js';
import { alreadyRunning } from './start.js';
import { threadLink } from './routing/thread-link.js';
import { chunkLines, fallbackText, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';

/**
 * `/eks-upgrade rollback <cluster> [--dry-run]` (issue 10), also what the summary card's "Roll back to N-1" button
 * runs (with `--to`, the minor it offered). Reads the cluster, runs the rollback preflight and builds the rollback
 * plan; EKS's own refusals (RBK001–RBK005: window closed, not upgraded in place, not one minor back, not ACTIVE or
 * busy, extended support) are answered here with the sentence and nothing starts. Rollback-readiness insights do not
 * stop the start: the job brings the data plane back first and reads them again at its gate, where an approver may
 * Force. No maintenance window applies: a rollback is the way out of an incident.
 */
export const rollbackCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('rollback', context.args);
  const cluster = findCluster(deps.config, command.target!)!;

  const running = await deps.control.findActive(cluster.name);
  // The breach card's Roll back replaces the held upgrade, once everything below says the rollback can start.
  const replacing = running && context.replacing?.jobId === running.jobId ? context.replacing : undefined;
  if (running && !replacing) throw new CommandRejected(alreadyRunning(running));
  const held = replacing ? ' The upgrade stays held.' : '';
  const slack = await readWaiversForPlan(deps.waivers, cluster.name);
  const reading = await attempt(`Reading ${cluster.name} for the rollback`, async () => {
    try {
      return await withDeadline(
        readRollback(deps, cluster, { policy: policyFromConfig(cluster, slack.waivers, slack.note), target: command.to, maxInsightsWaitMs: planReadTimeoutMs(cluster) / 2 }),
        planReadTimeoutMs(cluster),
        `Reading ${cluster.name}`,
        deps.clock,
      );
    } catch (error) {
      if (error instanceof RollbackReadError) throw new CommandRejected(`${error.message}${held}`);
      throw error;
    }
  });
  const { plan, preflight } = reading;
  const refusals = preflight.findings.filter((finding) => finding.severity === 'error' && !finding.forceable);
  if (refusals.length > 0) {
    const first = refusals[0];
    const rest = refusals.slice(1).map((finding) => `${finding.code}: ${finding.title}.`);
    throw new CommandRejected(
      `${cluster.name} cannot be rolled back to ${reading.to}: ${first.title} (${first.code}). ${rest.join(' ')}${first.remedy ? ` What to do: ${first.remedy}.` : ''} Nothing was started.${held}`.replace(/\s+/g, ' '),
    );
  }
  if (replacing) {
    const problem = await replacing.clear();
    if (problem) throw new CommandRejected(problem);
  }
  const timeoutMinutes = cluster.rollbackTimeoutMinutes ?? DEFAULT_ROLLBACK_TIMEOUT_MINUTES;
  const result = await deps.control.start(
    {
      cluster: cluster.name,
      region: cluster.region,
      to: reading.to,
      requestedBy: context.userId,
      channel: context.channelId,
      dryRun: command.dryRun,
      rollback: { timeoutMinutes, ...(preflight.window ? { until: preflight.window.until } : {}), ...(replacing ? { fromJob: replacing.jobId } : {}) },
    },
    plan.from,
    plan,
  );
  if (!result.ok) throw new CommandRejected(alreadyRunning(result.job));
  const detail = `${command.dryRun ? 'dry run ' : ''}rollback ${plan.from} → ${reading.to}`;
  deps.logger.info({ audit: 'rollback', user: context.userId, cluster: cluster.name, from: plan.from, to: reading.to, dryRun: command.dryRun, job: result.job.jobId }, 'rollback started');
  await recordAudit(deps.audit, deps.logger, { at: deps.clock.now(), cluster: cluster.name, user: context.userId, action: 'rollback', outcome: 'accepted', job: result.job.jobId, detail, via: 'command' });
  const insights = preflight.findings.filter((finding) => finding.code === 'RBK006' && finding.severity === 'error');
  const lines = [
    `${command.dryRun ? 'Started a dry run of rolling back' : 'Started rolling back'} ${cluster.name} from ${plan.from} to ${reading.to} (job \`${result.job.jobId}\`): node groups and the add-ons ${reading.to} does not support first, then after an approval the control plane, then Fargate.`,
    preflight.window ? `EKS accepts the rollback until ${formatUtc(preflight.window.until)}.` : '',
    insights.length > 0 ? `Rollback-blocking insights now (read again at the gate, after the node steps; an approver may Force there):\n${insights.map((finding) => `• ${formatFinding(finding)}`).join('\n')}` : '',
    `Follow it in its ${threadLink(result.job.thread)}.`,
  ].filter(Boolean);
  await context.respond({ text: fallbackText(lines.join(' ')), blocks: chunkLines([`:rewind: ${lines[0] ?? ''}`, ...lines.slice(1)]).map((text) => mrkdwnSection(text)) });
};
