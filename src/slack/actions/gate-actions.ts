import type { SlashCommandRouter } from '../../ports/slack/slash-command.js';
import type { App, BlockButtonAction, ViewSubmitAction } from '@slack/bolt';
import type { BotDeps } from '../../ports/bot-deps.js';
import type { Logger } from '../../log/logger.js';
import type { GateAction } from '../../ports/timeline-event.js';
import { observeAck } from '../metrics-ack.js';
import type { SlackMetrics } from '../metrics.js';
import {
  FORCE_CALLBACK_ID,
  REASON_ACTION_ID,
  REASON_BLOCK_ID,
  forceReasonView,
  parseForceMetadata,
  reasonProblem,
} from './force-reason-modal.js';
import { checkGateClick, gateAnswerReply, parseGateRef, type GateRef } from './gate-click.js';
import { recordAudit } from '../../audit/record-audit.js';
import { isQueueUnavailable, QUEUE_UNAVAILABLE_SENTENCE } from '../../domain/queue-unavailable.js';
import { clickPlace, tellUser, type ClickPlace } from './tell-user.js';

export interface ActionDeps {
  deps: BotDeps;
  metrics: SlackMetrics;
  logger: Logger;
  /** The slash command router: the Roll back button runs `rollback` through it (absent: the button is not answered). */
  commands?: SlashCommandRouter;
}

/**
 * Gate buttons (contract with render-gate-card.ts): `gate:continue | gate:abort | gate:remedy` answer the gate at
 * once; `gate:force` opens a modal for the reason, and its submission answers with action 'force'. Every handler
 * acks first, authorizes (approvers, user groups, two-person rule) and leaves an audit line either way. Double
 * clicks and stale cards are the engine's compare-and-set; we only put its verdict into words.
 */
export function registerGateActions(app: App, { deps, metrics, logger }: ActionDeps): void {
  app.action<BlockButtonAction>(/^gate:(continue|abort|remedy)$/, async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const gateAction = action.action_id.slice('gate:'.length) as GateAction;
    const place = clickPlace(body);
    const ref = parseGateRef(action.value);
    const audit = { audit: 'gate', user: body.user.id, action: gateAction, ...ref };
    if (!place || !ref) {
      logger.warn({ ...audit, value: action.value }, 'gate click without a readable gate reference ignored');
      metrics.countAction(action.action_id, 'invalid');
      if (place) await tellUser(client, place, 'This button does not belong to a gate the bot knows; nothing was changed.', logger);
      return;
    }
    try {
      const check = await checkGateClick(deps, ref, body.user.id, gateAction, place.channel);
      if (!check.ok) return await refuse(client, place, check, audit, action.action_id, 'button');
      const result = await deps.control.answerGate({ ...ref, action: gateAction, userId: body.user.id });
      logger.info({ ...audit, cluster: check.job.cluster, outcome: result.outcome }, `gate ${gateAction} by ${body.user.id}: ${result.outcome}`);
      await recordAudit(deps.audit, logger, { at: deps.clock.now(), cluster: check.job.cluster, user: body.user.id, action: `gate:${gateAction}`, outcome: result.outcome, job: ref.jobId, gate: ref.gateId, via: 'button' });
      metrics.countAction(action.action_id, result.outcome);
      const reply = gateAnswerReply(result);
      if (reply) await tellUser(client, place, reply, logger);
    } catch (error) {
      await failed(client, place, error, audit, action.action_id);
    }
  });

  app.action<BlockButtonAction>('gate:force', async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const place = clickPlace(body);
    const ref = parseGateRef(action.value);
    const audit = { audit: 'gate', user: body.user.id, action: 'force', ...ref };
    if (!place || !ref) {
      logger.warn({ ...audit, value: action.value }, 'force click without a readable gate reference ignored');
      metrics.countAction('gate:force', 'invalid');
      return;
    }
    try {
      const check = await checkGateClick(deps, ref, body.user.id, 'force', place.channel);
      if (!check.ok) return await refuse(client, place, check, audit, 'gate:force', 'button');
      const open = check.job.openGate;
      if (open && (open.gateId !== ref.gateId || open.revision !== ref.revision)) {
        metrics.countAction('gate:force', 'stale');
        return await tellUser(client, place, gateAnswerReply({ outcome: 'stale' })!, logger);
      }
      // trigger_id lives 3 s from the click: open the modal before anything else that could be slow.
      await client.views.open({
        trigger_id: body.trigger_id,
        view: forceReasonView({ ...ref, channel: place.channel, threadTs: place.threadTs }, { cluster: check.job.cluster, gateTitle: open?.title }),
      });
      logger.info({ ...audit, cluster: check.job.cluster }, 'force reason dialog opened');
      metrics.countAction('gate:force', 'dialog-opened');
    } catch (error) {
      await failed(client, place, error, audit, 'gate:force');
    }
  });

  app.view<ViewSubmitAction>(FORCE_CALLBACK_ID, async ({ ack, body, view, client, context }) => {
    const reason = view.state.values[REASON_BLOCK_ID]?.[REASON_ACTION_ID]?.value;
    const problem = reasonProblem(reason);
    if (problem) {
      await ack({ response_action: 'errors', errors: { [REASON_BLOCK_ID]: problem } });
      observeAck(metrics, context);
      metrics.countAction('force-reason', 'too-short');
      return;
    }
    await ack();
    observeAck(metrics, context);
    const metadata = parseForceMetadata(view.private_metadata);
    const audit = { audit: 'gate', user: body.user.id, action: 'force', ...metadata, reason: reason ?? undefined };
    if (!metadata) {
      logger.warn(audit, 'force reason submitted without readable metadata; ignored');
      metrics.countAction('force-reason', 'invalid');
      return;
    }
    const place: ClickPlace = { channel: metadata.channel, user: body.user.id, threadTs: metadata.threadTs };
    const ref: GateRef = { jobId: metadata.jobId, gateId: metadata.gateId, revision: metadata.revision };
    try {
      // Authorized again: the modal may have stayed open while clusters.yaml or group membership changed.
      const check = await checkGateClick(deps, ref, body.user.id, 'force', place.channel);
      if (!check.ok) return await refuse(client, place, check, audit, 'force-reason', 'modal');
      const result = await deps.control.answerGate({ ...ref, action: 'force', userId: body.user.id, reason: reason!.trim() });
      logger.info({ ...audit, cluster: check.job.cluster, outcome: result.outcome }, `gate force by ${body.user.id}: ${result.outcome}`);
      await recordAudit(deps.audit, logger, { at: deps.clock.now(), cluster: check.job.cluster, user: body.user.id, action: 'gate:force', outcome: result.outcome, job: ref.jobId, gate: ref.gateId, reason: reason!.trim(), via: 'modal' });
      metrics.countAction('force-reason', result.outcome);
      const reply = gateAnswerReply(result);
      if (reply) await tellUser(client, place, reply, logger);
    } catch (error) {
      await failed(client, place, error, audit, 'force-reason');
    }
  });

  async function refuse(
    client: App['client'],
    place: ClickPlace,
    { reply, refused, job }: { reply: string; refused: boolean; job?: { jobId: string; cluster: string } },
    audit: Record<string, unknown> & { action: string; gateId?: string; reason?: string },
    metric: string,
    via: 'button' | 'modal',
  ): Promise<void> {
    if (refused) logger.warn({ ...audit, allowed: false, reply }, 'refused a gate click');
    else logger.info({ ...audit, reply }, 'gate click on a job that is gone');
    metrics.countAction(metric, refused ? 'refused' : 'unknown-job');
    if (refused && job) {
      const entry = { at: deps.clock.now(), cluster: job.cluster, user: place.user, action: `gate:${audit.action}`, outcome: 'refused', job: job.jobId, gate: audit.gateId, reason: audit.reason, detail: reply, via };
      await recordAudit(deps.audit, logger, entry);
    }
    await tellUser(client, place, reply, logger);
  }

  async function failed(client: App['client'], place: ClickPlace, error: unknown, audit: Record<string, unknown>, metric: string): Promise<void> {
    logger.error({ ...audit, err: error }, 'handling a gate click failed');
    metrics.countAction(metric, 'error');
    const text = isQueueUnavailable(error)
      ? QUEUE_UNAVAILABLE_SENTENCE
      : 'The bot could not handle your click (an internal error, now in its log). If the card still shows its buttons, try again in a moment.';
    await tellUser(client, place, text, logger);
  }
}
