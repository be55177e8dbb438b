import { recordAudit } from '../../audit/record-audit.js';
import type { App, BlockButtonAction, ViewSubmitAction } from '@slack/bolt';
import { findCluster } from '../../config/clusters-config.js';
import { WAIVE_ACTION_ID } from '../../report/blocks/render-plan-blocks.js';
import type { WaiverStore } from '../../ports/waivers/waiver-store.js';
import { authorizeWaiverDecision, authorizeWaiverRequest } from '../authorize-waiver.js';
import { observeAck } from '../metrics-ack.js';
import { renderWaiverCard, WAIVER_ACTIONS } from '../../report/blocks/render-waiver-card.js';
import type { ActionDeps } from './gate-actions.js';
import { clickPlace, tellUser } from './tell-user.js';
import {
  parseFindingRef,
  parseWaiverMetadata,
  WAIVER_CALLBACK_ID,
  WAIVER_EXPIRY_ACTION,
  WAIVER_EXPIRY_BLOCK,
  WAIVER_REASON_ACTION,
  WAIVER_REASON_BLOCK,
  waiverExpiry,
  waiverReasonProblem,
  waiverRequestView,
} from './waiver-modal.js';

/**
 * Waivers in Slack. **Waive…** on a plan finding (requesters and approvers) opens the modal; its submission stores a
 * pending waiver and posts its card in the channel with Approve / Reject; an approver (not the asker, under the
 * two-person rule) approves, and the card is edited to say who and when; Revoke on an approved card (or on the
 * `waivers` list) ends it early. Every click is acked first, authorized, and leaves an audit log line either way.
 */
type Decision = 'approve' | 'reject' | 'revoke';

export function registerWaiverActions(app: App, { deps, metrics, logger }: ActionDeps): void {
  const store = deps.waivers;
  if (!store) return;

  app.action<BlockButtonAction>(WAIVE_ACTION_ID, async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const place = clickPlace(body);
    const ref = parseFindingRef(action.value);
    const audit = { audit: 'waiver', action: 'open', user: body.user.id, ...(ref ? { cluster: ref.c, code: ref.k, resource: ref.r } : {}) };
    if (!place || !ref) {
      logger.warn({ ...audit, value: action.value }, 'Waive… click without a readable finding ignored');
      metrics.countAction(WAIVE_ACTION_ID, 'invalid');
      if (place) await tellUser(client, place, 'This button does not name a finding the bot knows; nothing was changed. Run `plan` again.', logger);
      return;
    }
    const cluster = findCluster(deps.config, ref.c);
    const decision = cluster ? await authorizeWaiverRequest(deps, cluster, body.user.id) : { allowed: false as const, reason: `${ref.c} is not in clusters.yaml any more; its findings cannot be waived.` };
    if (!decision.allowed) {
      logger.warn({ ...audit, allowed: false }, 'refused a waiver request');
      await recordAudit(deps.audit, logger, { at: deps.clock.now(), cluster: ref.c, user: body.user.id, action: 'waiver:request', outcome: 'refused', detail: `${ref.k} on ${ref.r}: ${decision.reason}`, via: 'button' });
      metrics.countAction(WAIVE_ACTION_ID, 'refused');
      return await tellUser(client, place, decision.reason, logger);
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: waiverRequestView({ ...ref, channel: place.channel }, deps.clock.now()) });
      metrics.countAction(WAIVE_ACTION_ID, 'dialog-opened');
    } catch (error) {
      logger.error({ ...audit, err: error }, 'opening the waiver dialog failed');
      await tellUser(client, place, 'The bot could not open the waiver dialog (now in its log). Click Waive… again.', logger);
    }
  });

  app.view<ViewSubmitAction>(WAIVER_CALLBACK_ID, async ({ ack, body, view, client, context }) => {
    const values = view.state.values;
    const reason = values[WAIVER_REASON_BLOCK]?.[WAIVER_REASON_ACTION]?.value;
    const expiry = waiverExpiry(values[WAIVER_EXPIRY_BLOCK]?.[WAIVER_EXPIRY_ACTION]?.selected_date, deps.clock.now());
    const errors = {
      ...(waiverReasonProblem(reason) ? { [WAIVER_REASON_BLOCK]: waiverReasonProblem(reason)! } : {}),
      ...('problem' in expiry ? { [WAIVER_EXPIRY_BLOCK]: expiry.problem } : {}),
    };
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: 'errors', errors });
      observeAck(metrics, context);
      metrics.countAction(WAIVER_CALLBACK_ID, 'invalid-input');
      return;
    }
    await ack();
    observeAck(metrics, context);
    const metadata = parseWaiverMetadata(view.private_metadata);
    const audit = { audit: 'waiver', action: 'request', user: body.user.id, ...(metadata ? { cluster: metadata.c, code: metadata.k, resource: metadata.r } : {}) };
    if (!metadata || !('expiresAt' in expiry)) {
      logger.warn(audit, 'waiver request submitted without readable metadata; ignored');
      return;
    }
    const place = { channel: metadata.channel, user: body.user.id };
    const cluster = findCluster(deps.config, metadata.c);
    // Authorized again: the modal may have stayed open while clusters.yaml or group membership changed.
    const decision = cluster ? await authorizeWaiverRequest(deps, cluster, body.user.id) : { allowed: false as const, reason: `${metadata.c} is not in clusters.yaml any more.` };
    if (!decision.allowed) {
      logger.warn({ ...audit, allowed: false }, 'refused a waiver request');
      await recordAudit(deps.audit, logger, { at: deps.clock.now(), cluster: metadata.c, user: body.user.id, action: 'waiver:request', outcome: 'refused', detail: `${metadata.k} on ${metadata.r}: ${decision.reason}`, via: 'modal' });
      return await tellUser(client, place, decision.reason, logger);
    }
    const now = deps.clock.now();
    let waiver: Awaited<ReturnType<typeof store.request>>;
    try {
      waiver = await store.request({ cluster: metadata.c, code: metadata.k, resource: metadata.r, reason: reason!.trim(), expiresAt: expiry.expiresAt, requestedBy: body.user.id }, now);
    } catch (error) {
      logger.error({ ...audit, err: error }, 'storing a waiver request failed');
      return await tellUser(client, place, 'The bot could not record your waiver request (now in its log); nothing was waived and nothing was stored. Try again in a moment.', logger);
    }
    try {
      await client.chat.postMessage({ channel: metadata.channel, ...renderWaiverCard(waiver, now, metadata.t) });
    } catch (error) {
      // No approver can see a request without its card: undo it, and say which happened.
      logger.error({ ...audit, waiver: waiver.id, err: error }, 'posting a waiver card failed');
      const withdrawn = await store.withdraw(waiver.id).catch((err: unknown) => (logger.error({ ...audit, waiver: waiver.id, err }, 'withdrawing a waiver request failed'), false));
      const said = withdrawn
        ? `Posting the card of your waiver request failed (${slackErrorName(error)}), so the request was withdrawn: nothing was waived and nothing is stored. Try again in a moment.`
        : `Posting the card of your waiver request failed (${slackErrorName(error)}), and the bot could not withdraw it: it is stored as waiver \`${waiver.id}\`, pending, and waives nothing until an approver approves it; \`/eks-upgrade waivers ${metadata.c}\` shows it with its buttons.`;
      return await tellUser(client, place, said, logger);
    }
    try {
      logger.info({ ...audit, waiver: waiver.id, expiresAt: new Date(waiver.expiresAt).toISOString() }, 'waiver requested');
      const asked = `waiver ${waiver.id}: ${metadata.k} on ${metadata.r} until ${new Date(waiver.expiresAt).toISOString()}`;
      await recordAudit(deps.audit, logger, { at: now, cluster: metadata.c, user: body.user.id, action: 'waiver:request', outcome: 'requested', reason: reason!.trim(), detail: asked, via: 'modal' });
      metrics.countAction(WAIVER_CALLBACK_ID, 'requested');
    } catch (error) {
      logger.error({ ...audit, waiver: waiver.id, err: error }, 'recording a waiver request in the audit trail failed');
    }
  });

  app.action<BlockButtonAction>(/^waiver:(approve|reject|revoke)$/, async ({ ack, body, action, client, context }) => {
    await ack();
    observeAck(metrics, context);
    const verb = action.action_id.slice('waiver:'.length) as Decision;
    const place = clickPlace(body);
    const audit = { audit: 'waiver', action: verb, user: body.user.id, waiver: action.value };
    if (!place) return;
    try {
      const outcome = await decide(store, deps, verb, action.value ?? '', body.user.id);
      logger[outcome.refused ? 'warn' : 'info']({ ...audit, cluster: outcome.cluster, outcome: outcome.result }, `waiver ${verb}: ${outcome.result}`);
      if (outcome.cluster) {
        const entry = { at: deps.clock.now(), cluster: outcome.cluster, user: body.user.id, action: `waiver:${verb}`, outcome: outcome.result, detail: `waiver ${action.value ?? ''}${outcome.reply ? `: ${outcome.reply}` : ''}`, via: 'button' as const };
        await recordAudit(deps.audit, logger, entry);
      }
      metrics.countAction(action.action_id, outcome.result);
      // A card in the channel is edited in place; the `waivers` list is ephemeral (Slack cannot edit it), so say it.
      if (outcome.card && body.message?.ts && !body.container?.is_ephemeral) await client.chat.update({ channel: place.channel, ts: body.message.ts, ...outcome.card });
      else if (outcome.card && !outcome.reply) await tellUser(client, place, outcome.card.text, logger);
      if (outcome.reply) await tellUser(client, place, outcome.reply, logger);
    } catch (error) {
      logger.error({ ...audit, err: error }, `handling a waiver ${verb} failed`);
      metrics.countAction(action.action_id, 'error');
      await tellUser(client, place, `The bot could not ${verb} the waiver (now in its log). Try again in a moment.`, logger);
    }
  });
}

const DONE: Record<Decision, string> = { approve: 'approved', reject: 'rejected', revoke: 'revoked' };

/** Authorizes and applies one decision; says what happened in words, with the card to show afterwards. */
async function decide(store: WaiverStore, deps: ActionDeps['deps'], verb: Decision, id: string, userId: string) {
  const waiver = await store.get(id);
  if (!waiver) return { result: 'unknown', reply: 'This waiver no longer exists; nothing was changed.' };
  const cluster = findCluster(deps.config, waiver.cluster);
  const allowed = cluster ? await authorizeWaiverDecision(deps, cluster, waiver, userId, verb) : { allowed: false as const, reason: `${waiver.cluster} is not in clusters.yaml any more.` };
  if (!allowed.allowed) return { result: 'refused', refused: true, cluster: waiver.cluster, reply: allowed.reason };
  const now = deps.clock.now();
  const changed = await store[verb](id, userId, now);
  if (changed.outcome === 'unknown') return { result: 'unknown', reply: 'This waiver no longer exists; nothing was changed.' };
  const card = renderWaiverCard(changed.waiver, now);
  if (changed.outcome === 'not-allowed') {
    return { result: 'stale', cluster: waiver.cluster, card, reply: `Nothing changed: this waiver is already ${changed.waiver.state}${changed.waiver.closedBy ? ` (by <@${changed.waiver.closedBy}>)` : changed.waiver.approvedBy ? ` (by <@${changed.waiver.approvedBy}>)` : ''}.` };
  }
  return { result: DONE[verb], cluster: waiver.cluster, card };
}

export { WAIVER_ACTIONS };

/** Slack's error name (`invalid_blocks`, `channel_not_found`) from a WebClient error, else its message. */
function slackErrorName(error: unknown): string {
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : (error as Error).message ?? String(error);
}
