import { WAIVE_ACTION_ID, waiveValue } from './render-plan-blocks.js';
import type { ActionsBlock, Button, ConfirmationDialog, KnownBlock } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { GateAction, GateModel, RollbackOffer } from '../../ports/timeline-event.js';
import { BLOCK_LIMITS, contextLine, fallbackText, fitBlocks, linesToSections, truncate, truncateLine } from './block-kit-limits.js';
import { escapeMrkdwn, formatUtcTime, mention } from '../format-text.js';

export interface GateAnsweredInfo {
  action: GateAction | 'timeout';
  /** Slack user id of whoever answered; ignored for 'timeout'. */
  by: string;
  at: number;
  reason?: string;
}

/** Value carried by every gate button; the Slack surface parses it to route the click (contract with helper B). */
export interface GateButtonValue {
  jobId: string;
  gateId: string;
  revision: number;
}

/** At most this many sections of details on a card; the rest is counted and left to the exported timeline. */
const MAX_DETAIL_SECTIONS = 8;

/** Buttons appear in this order whatever order the gate lists them in, so approvers find them in the same place. */
const BUTTON_ORDER: GateAction[] = ['continue', 'remedy', 'force', 'abort'];

export function gateBlockId(gate: Pick<GateModel, 'jobId' | 'gateId' | 'revision'>): string {
  // Slack caps block_id at 255; the button value (≤2000) carries the same identity in full.
  return truncate(`gate:${gate.jobId}:${gate.gateId}:${gate.revision}`, BLOCK_LIMITS.blockId);
}

function plain(text: string, max: number) {
  return { type: 'plain_text' as const, text: truncate(text, max), emoji: true };
}

function confirmDialog(title: string, text: string, confirm: string, deny: string): ConfirmationDialog {
  return {
    title: plain(title, BLOCK_LIMITS.confirmTitle),
    text: plain(text, BLOCK_LIMITS.confirmText),
    confirm: plain(confirm, BLOCK_LIMITS.confirmButton),
    deny: plain(deny, BLOCK_LIMITS.confirmButton),
    style: 'danger',
  };
}

function button(gate: GateModel, action: GateAction): Button {
  const value: GateButtonValue = { jobId: gate.jobId, gateId: gate.gateId, revision: gate.revision };
  const base = { type: 'button' as const, action_id: `gate:${action}`, value: JSON.stringify(value) };
  switch (action) {
    case 'continue':
      return { ...base, text: plain(gate.continueLabel ?? 'Continue', BLOCK_LIMITS.buttonText), style: 'primary' };
    case 'remedy':
      return { ...base, text: plain(gate.remedyLabel || 'Apply the remedy', BLOCK_LIMITS.buttonText) };
    case 'force':
      return {
        ...base,
        text: plain('Force', BLOCK_LIMITS.buttonText),
        style: 'danger',
        confirm: confirmDialog(
          'Force past this check?',
          `Force overrides the check that stopped "${gate.title}" (e.g. evicts pods despite their PDB). ` +
            'You will be asked for a reason; it is recorded in the timeline.',
          'Force',
          'Cancel',
        ),
      };
    case 'abort':
      // Slack's default style: stopping is the safe answer, and it must not look like Force (danger) beside it.
      return {
        ...base,
        text: plain('Abort', BLOCK_LIMITS.buttonText),
        confirm: confirmDialog(
          'Abort the upgrade?',
          'The job stops after the current AWS operation (an update already in flight cannot be cancelled), ' +
            'restores the disruption budgets it changed and posts a report of where the cluster stands.',
          'Abort',
          'Keep going',
        ),
      };
  }
}

/** The action id of the breach card's Roll back (src/slack/actions/breach-rollback-action.ts answers it). */
export const BREACH_ROLLBACK_ACTION_ID = 'guard:rollback';

/** What the breach card's Roll back carries: the gate it answers (Abort) and the rollback it starts. */
export interface BreachRollbackValue extends GateButtonValue {
  cluster: string;
  to: string;
  until: number;
}

function rollbackButton(gate: GateModel, offer: RollbackOffer): Button {
  const value: BreachRollbackValue = { jobId: gate.jobId, gateId: gate.gateId, revision: gate.revision, cluster: offer.cluster, to: offer.to, until: offer.until };
  return {
    type: 'button',
    action_id: BREACH_ROLLBACK_ACTION_ID,
    text: plain(`Roll back to ${offer.to}`, BLOCK_LIMITS.buttonText),
    style: 'danger',
    value: JSON.stringify(value),
    confirm: confirmDialog(
      'Abort and roll back?',
      `Aborts this upgrade of ${offer.cluster} where it stopped and starts rolling it back to ${offer.to}: node groups and add-ons first, ` +
        'then after an approval the control plane. If the rollback cannot start, the upgrade stays held.',
      'Roll back',
      'Cancel',
    ),
  };
}

/** "✅ Approved by <@U> at 14:03:07 UTC" and its siblings: the line that replaces the buttons once answered. */
export function answerLine(gate: GateModel, answered: GateAnsweredInfo): string {
  const who = mention(answered.by);
  const at = formatUtcTime(answered.at);
  const reason = answered.reason ? ` — reason: ${escapeMrkdwn(answered.reason)}` : '';
  if (gate.automatic) return `🤖 ${answerLabel(gate, answered.action)}, answered automatically by ${escapeMrkdwn(gate.automatic)} at ${at}; no one was asked`;
  switch (answered.action) {
    case 'continue':
      return gate.continueLabel ? `✅ ${escapeMrkdwn(gate.continueLabel)} chosen by ${who} at ${at}${reason}` : `✅ Approved by ${who} at ${at}${reason}`;
    case 'abort':
      return `⛔ Aborted by ${who} at ${at}${reason}`;
    case 'force':
      return `⚠️ Forced by ${who} at ${at}${reason}`;
    case 'remedy':
      return `🛠️ "${escapeMrkdwn(gate.remedyLabel || 'Remedy')}" chosen by ${who} at ${at}${reason}`;
    case 'timeout':
      return `⏰ No answer by ${at}: the gate timed out${reason}`;
  }
}

function answerLabel(gate: GateModel, action: GateAnsweredInfo['action']): string {
  if (action === 'continue' && gate.continueLabel) return escapeMrkdwn(gate.continueLabel);
  if (action === 'remedy') return `"${escapeMrkdwn(gate.remedyLabel || 'Remedy')}"`;
  return action === 'timeout' ? 'No answer' : action.charAt(0).toUpperCase() + action.slice(1);
}

/**
 * A question the job waits on (open) or the record of its answer (answered: same question, the buttons replaced by
 * who answered and when). Button contract with the Slack surface: action_id `gate:<action>`, value
 * JSON {jobId, gateId, revision}, actions block_id `gate:<jobId>:<gateId>:<revision>`.
 */
export function renderGateCard(gate: GateModel, answered?: GateAnsweredInfo): SlackMessage {
  const icon = answered ? '🗳️' : '✋';
  const body: KnownBlock[] = [
    { type: 'header', text: plain(`${icon} ${gate.title}`, BLOCK_LIMITS.headerText) },
    ...linesToSections(gate.details, MAX_DETAIL_SECTIONS),
    // Waive… per blocking finding while the gate is open (contract: src/slack/actions/waiver-actions.ts).
    ...(answered || gate.automatic ? [] : (gate.waivable ?? []).map((finding): KnownBlock => ({
      type: 'section',
      text: { type: 'mrkdwn', text: truncateLine(`\`${finding.code}\` ${escapeMrkdwn(finding.title)}`, BLOCK_LIMITS.sectionText) },
      accessory: { type: 'button', action_id: WAIVE_ACTION_ID, text: { type: 'plain_text', text: 'Waive…' }, value: waiveValue(finding.cluster, finding.code, finding.resource, finding.title) },
    }))),
  ];
  const tail: KnownBlock[] = [];
  if (answered) {
    tail.push(contextLine(answerLine(gate, answered)));
  } else if (gate.automatic) {
    tail.push(contextLine(`🤖 Answered automatically by ${escapeMrkdwn(gate.automatic)}: nothing to click · gate \`${gate.gateId}\``));
  } else {
    const actions = BUTTON_ORDER.filter((action) => gate.actions.includes(action));
    if (actions.length > 0) {
      const block: ActionsBlock = {
        type: 'actions',
        block_id: gateBlockId(gate),
        // The breach card's Roll back sits after Resume: the way out, beside the way on (issue 29).
        elements: actions.flatMap((action) => (action === 'continue' && gate.rollback ? [button(gate, action), rollbackButton(gate, gate.rollback)] : [button(gate, action)])),
      };
      tail.push(block);
    }
    tail.push(contextLine(`Gate \`${gate.gateId}\` · revision ${gate.revision} · job \`${gate.jobId}\``));
  }
  const text = answered
    ? `${gate.title} — ${answerLine(gate, answered)}`
    : gate.automatic
      ? `${gate.title} — answered automatically by ${gate.automatic}`
      : `Waiting for approval: ${gate.title} (${BUTTON_ORDER.filter((a) => gate.actions.includes(a)).join(' / ')})`;
  return { text: fallbackText(text), blocks: fitBlocks(body, tail) };
}
