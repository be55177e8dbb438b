import { recordAudit } from '../../src/audit/record-audit.js';
import { findCluster } from '../../src/config/clusters-config.js';
import { authorizeJobControl, type JobControlAction } from '../../src/domain/authorize.js';
import type { JobSummary } from '../../src/ports/upgrade-control.js';
import { attempt } from './command-failure.js';
import type { CommandContext, CommandHandler } from './command-context.js';
import { CommandRejected } from './command-rejected.js';
import { COMMAND, problemMessage } from './command-usage.js';
import { quoteInput, readArgs } from './parse-command.js';
import { checkCluster } from './route-command.js';
import { fallbackText, mrkdwnSection } from '../../src/report/blocks/block-kit-limits.js';

/**
 * `pause | resume | abort <job-id | cluster>`: the same controls as the buttons of the status card. A cluster name
 * means its running job. The job's cluster must be drivable from this channel and the user one of its approvers
 * (or, for pause and abort, the person who started it).
 */
export function jobControlCommand(action: JobControlAction): CommandHandler {
  return async (context) => {
    const command = readArgs(action, context.args);
    const job = await resolveJob(context, command.target!);
    const cluster = checkCluster(context.deps, job.cluster, context.channelId);
    const decision = await authorizeJobControl(context.deps, cluster, job, context.userId, action);
    if (!decision.allowed) {
      context.deps.logger.warn({ audit: action, user: context.userId, job: job.jobId, cluster: job.cluster, allowed: false }, `refused ${action}`);
      await recordAudit(context.deps.audit, context.deps.logger, { at: context.deps.clock.now(), cluster: job.cluster, user: context.userId, action, outcome: 'refused', job: job.jobId, detail: decision.reason, via: 'command' });
      throw new CommandRejected(decision.reason);
    }
    const result = await attempt(`${action} of job ${job.jobId}`, () => context.deps.control[action](job.jobId, context.userId));
    context.deps.logger.info({ audit: action, user: context.userId, job: job.jobId, cluster: job.cluster, ok: result.ok }, `${action} requested`);
    await recordAudit(context.deps.audit, context.deps.logger, { at: context.deps.clock.now(), cluster: job.cluster, user: context.userId, action, outcome: result.ok ? 'accepted' : 'declined', job: job.jobId, detail: result.message, via: 'command' });
    if (!result.ok) throw new CommandRejected(result.message);
    await context.respond({ text: fallbackText(result.message), blocks: [mrkdwnSection(result.message)] });
  };
}

/** A cluster name resolves to its running job; anything else is taken as a job id. */
export async function resolveJob(context: CommandContext, target: string): Promise<JobSummary> {
  const { control, config } = context.deps;
  const cluster = findCluster(config, target);
  if (cluster) {
    checkCluster(context.deps, cluster.name, context.channelId);
    const active = await attempt(`Looking up the running upgrade of ${cluster.name}`, () => control.findActive(cluster.name));
    if (!active) throw new CommandRejected(problemMessage(`No upgrade of ${cluster.name} is running. \`${COMMAND} jobs ${cluster.name}\` lists its recent jobs.`));
    return active;
  }
  const job = await attempt(`Looking up job ${target}`, () => control.getJob(target));
  if (!job) throw new CommandRejected(`There is no cluster or job called ${quoteInput(target)}. \`${COMMAND} jobs\` lists jobs with their ids.`);
  return job;
}
