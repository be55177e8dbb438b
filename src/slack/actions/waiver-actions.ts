import type { App } from '@slack/bolt';
import { WAIVE_ACTION_ID } from '../../report/blocks/render-plan-blocks.js';
import { authorizeWaiverRequestFor } from '../../waivers/policy/authorize-waiver.js';
import { decideWaiver, type WaiverDecision } from '../../waivers/store/decide-waiver.js';
import { renderWaiverCard, WAIVER_ACTIONS } from '../../report/blocks/render-waiver-card.js';
import { defineAction, defineSubmission, fieldErrors, type ActionDeps, type Answer, type Verdict } from './define-action.js';
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
  type FindingRef,
} from '../../waivers/request/waiver-request-modal.js';

/**
 * Waivers in Slack. **Waive…** on a plan finding (requesters and approvers) opens the modal; its submission stores a
 * pending waiver and posts its card in the channel with Approve / Reject; an approver (not the asker, under the
 * two-person rule) approves, and the card is edited to say who and when; Revoke on an approved card (or on the
 * `waivers` list) ends it early. Every click is acked first, authorized, and leaves an audit log line either way.
 */
export function registerWaiverActions(app: App, kit: ActionDeps): void {
  const { deps, logger } = kit;
  const store = deps.waivers;
  if (!store) return;

  /** Requesters and approvers may ask; a refusal is logged, recorded with the finding, and said. */
  const mayAsk = async (ref: FindingRef, user: string, gone: string): Promise<Verdict<undefined>> => {
    const decision = await authorizeWaiverRequestFor(deps, ref.c, user, gone);
    if (decision.allowed) return { grant: undefined };
    return {
      refuse: {
        log: { level: 'warn', msg: 'refused a waiver request', fields: { allowed: false } },
        outcome: 'refused',
        audit: { cluster: ref.c, action: 'waiver:request', outcome: 'refused', detail: `${ref.k} on ${ref.r}: ${decision.reason}` },
        tell: decision.reason,
      },
    };
  };
  const findingFields = (action: string, ref: FindingRef | undefined) =>
    ({ audit: 'waiver', action, ...(ref ? { cluster: ref.c, code: ref.k, resource: ref.r } : {}) });

  defineAction(app, kit, {
    id: WAIVE_ACTION_ID,
    read: parseFindingRef,
    logFields: (_id, ref) => findingFields('open', ref),
    unreadable: { log: 'Waive… click without a readable finding ignored', tell: 'This button does not name a finding the bot knows; nothing was changed. Run `plan` again.' },
    authorize: (ref, click) => mayAsk(ref, click.user, `${ref.c} is not in clusters.yaml any more; its findings cannot be waived.`),
    act: async (ref, _grant, click) => {
      await click.client.views.open({ trigger_id: click.body.trigger_id, view: waiverRequestView({ ...ref, channel: click.place.channel }, deps.clock.now()) });
      return { outcome: 'dialog-opened' };
    },
    failed: () => ({ log: 'opening the waiver dialog failed', tell: 'The bot could not open the waiver dialog (now in its log). Click Waive… again.' }),
  });

  defineSubmission(app, kit, {
    callbackId: WAIVER_CALLBACK_ID,
    read: (view, user) => {
      const values = view.state.values;
      const reason = values[WAIVER_REASON_BLOCK]?.[WAIVER_REASON_ACTION]?.value;
      const reasonProblem = waiverReasonProblem(reason);
      const expiry = waiverExpiry(values[WAIVER_EXPIRY_BLOCK]?.[WAIVER_EXPIRY_ACTION]?.selected_date, deps.clock.now());
      const errors = { ...(reasonProblem ? { [WAIVER_REASON_BLOCK]: reasonProblem } : {}), ...('problem' in expiry ? { [WAIVER_EXPIRY_BLOCK]: expiry.problem } : {}) };
      if (Object.keys(errors).length > 0 || !reason || !('expiresAt' in expiry)) return fieldErrors(errors, 'invalid-input');
      const metadata = parseWaiverMetadata(view.private_metadata);
      if (!metadata) return undefined;
      return { input: { metadata, reason: reason.trim(), expiresAt: expiry.expiresAt }, place: { channel: metadata.channel, user } };
    },
    logFields: (_id, input) => findingFields('request', input?.metadata),
    unreadable: { log: 'waiver request submitted without readable metadata; ignored' },
    // Authorized again: the modal may have stayed open while clusters.yaml or group membership changed.
    authorize: ({ metadata }, click) => mayAsk(metadata, click.user, `${metadata.c} is not in clusters.yaml any more.`),
    act: async ({ metadata, reason, expiresAt }, _grant, click): Promise<Answer> => {
      const now = deps.clock.now();
      let waiver: Awaited<ReturnType<typeof store.request>>;
      try {
        waiver = await store.request({ cluster: metadata.c, code: metadata.k, resource: metadata.r, reason, expiresAt, requestedBy: click.user }, now);
      } catch (error) {
        return {
          log: { level: 'error', msg: 'storing a waiver request failed', fields: { err: error } },
          tell: 'The bot could not record your waiver request (now in its log); nothing was waived and nothing was stored. Try again in a moment.',
        };
      }
      try {
        await click.client.chat.postMessage({ channel: metadata.channel, ...renderWaiverCard(waiver, now, metadata.t) });
      } catch (error) {
        // No approver can see a request without its card: undo it, and say which happened.
        logger.error({ ...findingFields('request', metadata), user: click.user, waiver: waiver.id, err: error }, 'posting a waiver card failed');
        const withdrawn = await store.withdraw(waiver.id).catch((err: unknown) => (logger.error({ waiver: waiver.id, err }, 'withdrawing a waiver request failed'), false));
        return {
          tell: withdrawn
            ? `Posting the card of your waiver request failed (${slackErrorName(error)}), so the request was withdrawn: nothing was waived and nothing is stored. Try again in a moment.`
            : `Posting the card of your waiver request failed (${slackErrorName(error)}), and the bot could not withdraw it: it is stored as waiver \`${waiver.id}\`, pending, and waives nothing until an approver approves it; \`/eks-upgrade waivers ${metadata.c}\` shows it with its buttons.`,
        };
      }
      const asked = `waiver ${waiver.id}: ${metadata.k} on ${metadata.r} until ${new Date(waiver.expiresAt).toISOString()}`;
      return {
        log: { level: 'info', msg: 'waiver requested', fields: { waiver: waiver.id, expiresAt: new Date(waiver.expiresAt).toISOString() } },
        audit: { at: now, cluster: metadata.c, action: 'waiver:request', outcome: 'requested', reason, detail: asked },
        outcome: 'requested',
      };
    },
  });

  const verbOf = (actionId: string) => actionId.slice('waiver:'.length) as WaiverDecision;
  defineAction(app, kit, {
    id: /^waiver:(approve|reject|revoke)$/,
    read: (value) => value ?? '',
    logFields: (id, waiverId) => ({ audit: 'waiver', action: verbOf(id), waiver: waiverId }),
    unreadable: { log: 'waiver click outside a channel ignored' },
    act: async (id, _grant, click): Promise<Answer> => {
      const verb = verbOf(click.id);
      const outcome = await decideWaiver(store, deps, verb, id, click.user);
      const { reply } = outcome;
      const card = outcome.waiver && renderWaiverCard(outcome.waiver, outcome.at!);
      const body = click.body;
      return {
        log: { level: outcome.refused ? 'warn' : 'info', msg: `waiver ${verb}: ${outcome.result}`, fields: { cluster: outcome.cluster, outcome: outcome.result } },
        ...(outcome.cluster ? { audit: { cluster: outcome.cluster, action: `waiver:${verb}`, outcome: outcome.result, detail: `waiver ${id}${reply ? `: ${reply}` : ''}` } } : {}),
        outcome: outcome.result,
        show: async () => {
          // A card in the channel is edited in place; the `waivers` list is ephemeral (Slack cannot edit it), so say it.
          if (card && body.message?.ts && !body.container?.is_ephemeral) await click.client.chat.update({ channel: click.place.channel, ts: body.message.ts, ...card });
          else if (card && !reply) await click.tell(card.text);
        },
        tell: reply,
      };
    },
    failed: (_error, actionId) => ({ log: `handling a waiver ${verbOf(actionId)} failed`, tell: `The bot could not ${verbOf(actionId)} the waiver (now in its log). Try again in a moment.` }),
  });
}

export { WAIVER_ACTIONS };

/** Slack's error name (`invalid_blocks`, `channel_not_found`) from a WebClient error, else its message. */
function slackErrorName(error: unknown): string {
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : (error as Error).message ?? String(error);
}
