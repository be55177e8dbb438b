import type { App } from '@slack/bolt';
import type { GateAction } from '../../ports/timeline-event.js';
import type { GateAnswerResult, JobSummary } from '../../ports/upgrade-control.js';
import {
  FORCE_CALLBACK_ID,
  REASON_ACTION_ID,
  REASON_BLOCK_ID,
  forceReasonView,
  parseForceMetadata,
  reasonProblem,
} from './force-reason-modal.js';
import { checkGateClick, gateAnswerReply, parseGateRef, type GateRef } from './gate-click.js';
import { isQueueUnavailable, QUEUE_UNAVAILABLE_SENTENCE } from '../../domain/queue-unavailable.js';
import { defineAction, defineSubmission, fieldErrors, type ActionDeps, type Answer, type Click, type Verdict } from './define-action.js';

/**
 * Gate buttons (contract with render-gate-card.ts): `gate:continue | gate:abort | gate:remedy` answer the gate at
 * once; `gate:force` opens a modal for the reason, and its submission answers with action 'force'. Every handler
 * acks first, authorizes (approvers, user groups, two-person rule) and leaves an audit line either way. Double
 * clicks and stale cards are the engine's compare-and-set; we only put its verdict into words.
 */
export function registerGateActions(app: App, kit: ActionDeps): void {
  const { deps } = kit;

  /** May this person answer the gate with `action`? A refusal is recorded; a job that is gone is only said. */
  const mayAnswer = async (ref: GateRef, click: Click<unknown>, action: GateAction, reason?: string): Promise<Verdict<JobSummary>> => {
    const check = await checkGateClick(deps, ref, click.user, action, click.place.channel);
    if (check.ok) return { grant: check.job };
    const { reply, refused, job } = check;
    return {
      refuse: {
        log: refused ? { level: 'warn', msg: 'refused a gate click', fields: { allowed: false, reply } } : { level: 'info', msg: 'gate click on a job that is gone', fields: { reply } },
        outcome: refused ? 'refused' : 'unknown-job',
        ...(refused && job ? { audit: { cluster: job.cluster, action: `gate:${action}`, outcome: 'refused', job: job.jobId, gate: ref.gateId, reason, detail: reply } } : {}),
        tell: reply,
      },
    };
  };

  /** The engine's verdict on an answer: logged, recorded, and put into words unless the card will show it. */
  const answered = (result: GateAnswerResult, job: JobSummary, ref: GateRef, action: GateAction, user: string, reason?: string): Answer => ({
    log: { level: 'info', msg: `gate ${action} by ${user}: ${result.outcome}`, fields: { cluster: job.cluster, outcome: result.outcome } },
    audit: { cluster: job.cluster, action: `gate:${action}`, outcome: result.outcome, job: ref.jobId, gate: ref.gateId, ...(reason ? { reason } : {}) },
    outcome: result.outcome,
    tell: gateAnswerReply(result),
  });

  const failed = (error: unknown) => ({
    log: 'handling a gate click failed',
    tell: isQueueUnavailable(error)
      ? QUEUE_UNAVAILABLE_SENTENCE
      : 'The bot could not handle your click (an internal error, now in its log). If the card still shows its buttons, try again in a moment.',
  });

  const actionOf = (actionId: string) => actionId.slice('gate:'.length) as GateAction;

  defineAction(app, kit, {
    id: /^gate:(continue|abort|remedy)$/,
    read: (value) => parseGateRef(value),
    logFields: (id, ref) => ({ audit: 'gate', action: actionOf(id), ...ref }),
    unreadable: { log: 'gate click without a readable gate reference ignored', tell: 'This button does not belong to a gate the bot knows; nothing was changed.' },
    authorize: (ref, click) => mayAnswer(ref, click, actionOf(click.id)),
    act: async (ref, job, click) => {
      const action = actionOf(click.id);
      const result = await deps.control.answerGate({ ...ref, action, userId: click.user });
      return answered(result, job, ref, action, click.user);
    },
    failed,
  });

  defineAction(app, kit, {
    id: 'gate:force',
    read: (value) => parseGateRef(value),
    logFields: (_id, ref) => ({ audit: 'gate', action: 'force', ...ref }),
    unreadable: { log: 'force click without a readable gate reference ignored' },
    authorize: (ref, click) => mayAnswer(ref, click, 'force'),
    act: async (ref, job, click) => {
      const open = job.openGate;
      if (open && (open.gateId !== ref.gateId || open.revision !== ref.revision)) return { outcome: 'stale', tell: gateAnswerReply({ outcome: 'stale' }) };
      // trigger_id lives 3 s from the click: open the modal before anything else that could be slow.
      await click.client.views.open({
        trigger_id: click.body.trigger_id,
        view: forceReasonView({ ...ref, channel: click.place.channel, threadTs: click.place.threadTs }, { cluster: job.cluster, gateTitle: open?.title }),
      });
      return { log: { level: 'info', msg: 'force reason dialog opened', fields: { cluster: job.cluster } }, outcome: 'dialog-opened' };
    },
    failed,
  });

  defineSubmission(app, kit, {
    callbackId: FORCE_CALLBACK_ID,
    metric: 'force-reason',
    read: (view, user) => {
      const typed = view.state.values[REASON_BLOCK_ID]?.[REASON_ACTION_ID]?.value;
      const problem = reasonProblem(typed);
      if (problem || !typed) return fieldErrors({ [REASON_BLOCK_ID]: problem ?? '' }, 'too-short');
      const metadata = parseForceMetadata(view.private_metadata);
      if (!metadata) return undefined;
      // `typed` as typed goes into the log and a refusal's record; the answer carries it trimmed.
      const ref: GateRef = { jobId: metadata.jobId, gateId: metadata.gateId, revision: metadata.revision };
      return { input: { ref, metadata, typed, reason: typed.trim() }, place: { channel: metadata.channel, user, threadTs: metadata.threadTs } };
    },
    logFields: (_id, input) => ({ audit: 'gate', action: 'force', ...input?.metadata, reason: input?.typed }),
    unreadable: { log: 'force reason submitted without readable metadata; ignored' },
    // Authorized again: the modal may have stayed open while clusters.yaml or group membership changed.
    authorize: ({ ref, typed }, click) => mayAnswer(ref, click, 'force', typed),
    act: async ({ ref, reason }, job, click) => {
      const result = await deps.control.answerGate({ ...ref, action: 'force', userId: click.user, reason });
      return answered(result, job, ref, 'force', click.user, reason);
    },
    failed,
  });
}
