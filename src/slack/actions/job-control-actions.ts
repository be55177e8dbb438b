/**
 * Pause / Resume / Abort buttons on the status card: `job:pause | job:resume | job:abort`, value JSON {jobId}. The
 * same rules as the slash commands (approvers; the requester may pause or abort their own job); the engine's
 * ControlResult message is told to the clicker, and every click leaves an audit line.
 */

import type { App } from '@slack/bolt';
import { z } from 'zod';
import { findCluster } from '../../config/clusters-config.js';
import { authorizeJobControl, channelRefusal, type JobControlAction } from '../../domain/authorize.js';
import { isQueueUnavailable, QUEUE_UNAVAILABLE_SENTENCE } from '../../domain/queue-unavailable.js';
import type { JobSummary } from '../../ports/upgrade-control.js';
import { parseJsonAs } from '../../report/blocks/reason-modal.js';
import { defineAction, type ActionDeps, type Verdict } from './define-action.js';

const jobValueSchema = z.object({ jobId: z.string().min(1) });
const readJobId = (value: string | undefined) => parseJsonAs(jobValueSchema, value)?.jobId;

export function registerJobControlActions(app: App, kit: ActionDeps): void {
  const { deps } = kit;
  const verbOf = (actionId: string) => actionId.slice('job:'.length) as JobControlAction;
  defineAction(app, kit, {
    id: /^job:(pause|resume|abort)$/,
    read: readJobId,
    logFields: (id, jobId) => ({ audit: verbOf(id), job: jobId }),
    unreadable: { log: 'job control click without a readable job id ignored' },
    authorize: async (jobId, click): Promise<Verdict<JobSummary>> => {
      const verb = verbOf(click.id);
      const job = await deps.control.getJob(jobId);
      if (!job) return { refuse: { outcome: 'unknown-job', tell: 'This upgrade job no longer exists; nothing was changed.' } };
      const cluster = findCluster(deps.config, job.cluster);
      const decision = !cluster
        ? { allowed: false as const, reason: `${job.cluster} is no longer in clusters.yaml, so it cannot be controlled from Slack.` }
        : !cluster.channels.includes(click.place.channel)
          ? { allowed: false as const, reason: channelRefusal(cluster) }
          : await authorizeJobControl(deps, cluster, job, click.user, verb);
      if (decision.allowed) return { grant: job };
      return {
        refuse: {
          log: { level: 'warn', msg: `refused ${verb}`, fields: { cluster: job.cluster, allowed: false } },
          outcome: 'refused',
          audit: { cluster: job.cluster, action: verb, outcome: 'refused', job: job.jobId, detail: decision.reason },
          tell: decision.reason,
        },
      };
    },
    act: async (_jobId, job, click) => {
      const verb = verbOf(click.id);
      const result = await deps.control[verb](job.jobId, click.user);
      const outcome = result.ok ? 'accepted' : 'declined';
      return {
        log: { level: 'info', msg: `${verb} requested: ${result.message}`, fields: { cluster: job.cluster, ok: result.ok } },
        audit: { cluster: job.cluster, action: verb, outcome, job: job.jobId, detail: result.message },
        outcome,
        tell: result.message,
      };
    },
    failed: (error, id) => ({
      log: `handling a ${verbOf(id)} click failed`,
      tell: isQueueUnavailable(error) ? QUEUE_UNAVAILABLE_SENTENCE : `The bot could not ${verbOf(id)} the job (an internal error, now in its log). Try again in a moment.`,
    }),
  });
}

/**
 * "Timeline" on the status card: uploads the timeline so far into the thread. Reading the record needs no
 * approval, only access to the cluster's channel, where the card is.
 */
export function registerTimelineAction(app: App, kit: ActionDeps): void {
  const { deps } = kit;
  defineAction(app, kit, {
    id: 'job:timeline',
    read: readJobId,
    logFields: (_id, jobId) => ({ audit: 'timeline', job: jobId }),
    unreadable: { log: 'timeline click without a readable job id ignored' },
    authorize: async (jobId, click): Promise<Verdict<JobSummary>> => {
      const job = await deps.control.getJob(jobId);
      const cluster = job && findCluster(deps.config, job.cluster);
      if (job && cluster && cluster.channels.includes(click.place.channel)) return { grant: job };
      return { refuse: { outcome: 'refused', tell: 'This upgrade job is not one this channel can see; nothing was exported.' } };
    },
    act: async (_jobId, job, click) => {
      const result = await deps.control.exportTimeline(job.jobId, click.user);
      return { log: { level: 'info', msg: 'timeline export requested', fields: { ok: result.ok } }, outcome: result.ok ? 'accepted' : 'declined', tell: result.message };
    },
    failed: (error) => ({
      log: 'exporting the timeline on demand failed',
      tell: isQueueUnavailable(error) ? QUEUE_UNAVAILABLE_SENTENCE : 'The bot could not export the timeline (an internal error, now in its log). Try again in a moment.',
    }),
  });
}
