/**
 * Pause / Resume / Abort buttons on the status card: `job:pause | job:resume | job:abort`, value JSON {jobId}. The
 * same rules as the slash commands (approvers; the requester may pause or abort their own job); the engine's
 * ControlResult message is told to the clicker, and every click leaves an audit line.
 */

import type { App, BlockButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { findCluster } from '../../config/clusters-config.js';
import { authorizeJobControl, type JobControlAction } from '../../domain/authorize.js';
import { observeAck } from '../metrics-ack.js';
import type { ActionDeps } from './gate-actions.js';
import { clickPlace, tellUser } from './tell-user.js';

const jobValueSchema = z.object({ jobId: z.string().min(1) });

export function registerJobControlActions(app: App, { deps, metrics, logger }: ActionDeps): void {
  app.action<BlockButtonAction>(/^job:(pause|resume|abort)$/, async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const verb = action.action_id.slice('job:'.length) as JobControlAction;
    const place = clickPlace(body);
    const jobId = readJobId(action.value);
    const audit = { audit: verb, user: body.user.id, job: jobId };
    if (!place || !jobId) {
      logger.warn({ ...audit, value: action.value }, 'job control click without a readable job id ignored');
      metrics.countAction(action.action_id, 'invalid');
      return;
    }
    try {
      const job = await deps.control.getJob(jobId);
      if (!job) {
        metrics.countAction(action.action_id, 'unknown-job');
        return await tellUser(client, place, 'This upgrade job no longer exists; nothing was changed.', logger);
      }
      const cluster = findCluster(deps.config, job.cluster);
      const decision = cluster
        ? await authorizeJobControl(deps, cluster, job, body.user.id, verb)
        : { allowed: false as const, reason: `${job.cluster} is no longer in clusters.yaml, so it cannot be controlled from Slack.` };
      if (!decision.allowed) {
        logger.warn({ ...audit, cluster: job.cluster, allowed: false }, `refused ${verb}`);
        metrics.countAction(action.action_id, 'refused');
        return await tellUser(client, place, decision.reason, logger);
      }
      const result = await deps.control[verb](job.jobId, body.user.id);
      logger.info({ ...audit, cluster: job.cluster, ok: result.ok }, `${verb} requested: ${result.message}`);
      metrics.countAction(action.action_id, result.ok ? 'accepted' : 'declined');
      await tellUser(client, place, result.message, logger);
    } catch (error) {
      logger.error({ ...audit, err: error }, `handling a ${verb} click failed`);
      metrics.countAction(action.action_id, 'error');
      await tellUser(client, place, `The bot could not ${verb} the job (an internal error, now in its log). Try again in a moment.`, logger);
    }
  });
}

/**
 * "Timeline" on the status card: uploads the timeline so far into the thread. Reading the record needs no
 * approval, only access to the cluster's channel, where the card is.
 */
export function registerTimelineAction(app: App, { deps, metrics, logger }: ActionDeps): void {
  app.action<BlockButtonAction>('job:timeline', async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const place = clickPlace(body);
    const jobId = readJobId(action.value);
    if (!place || !jobId) {
      metrics.countAction(action.action_id, 'invalid');
      return;
    }
    try {
      const job = await deps.control.getJob(jobId);
      const cluster = job && findCluster(deps.config, job.cluster);
      if (!job || !cluster || !cluster.channels.includes(place.channel)) {
        metrics.countAction(action.action_id, 'refused');
        return await tellUser(client, place, 'This upgrade job is not one this channel can see; nothing was exported.', logger);
      }
      const result = await deps.control.exportTimeline(job.jobId, body.user.id);
      logger.info({ audit: 'timeline', user: body.user.id, job: jobId, ok: result.ok }, 'timeline export requested');
      metrics.countAction(action.action_id, result.ok ? 'accepted' : 'declined');
      await tellUser(client, place, result.message, logger);
    } catch (error) {
      logger.error({ err: error, job: jobId }, 'exporting the timeline on demand failed');
      metrics.countAction(action.action_id, 'error');
      await tellUser(client, place, 'The bot could not export the timeline (an internal error, now in its log). Try again in a moment.', logger);
    }
  });
}

function readJobId(value: string | undefined): string | undefined {
  try {
    const parsed = jobValueSchema.safeParse(JSON.parse(value ?? ''));
    return parsed.success ? parsed.data.jobId : undefined;
  } catch {
    return undefined;
  }
}
