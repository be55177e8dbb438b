import type { KnownBlock } from '@slack/types';
import { isInForce, type Waiver } from '../../waivers/model/waiver-match.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { chunkLines, fallbackText } from './block-kit-limits.js';
import { escapeMrkdwn, formatUtcDateTime } from '../format-text.js';

/**
 * A waiver as a Slack card: what it waives (code, resource glob, the finding's title when known), why, until when,
 * who asked and who decided — and the buttons its state allows: Approve / Reject while pending, Revoke while in
 * force. The same card is posted when a waiver is asked for and edited in place as it is decided.
 */
export const WAIVER_ACTIONS = { approve: 'waiver:approve', reject: 'waiver:reject', revoke: 'waiver:revoke' } as const;

const e = escapeMrkdwn;

export function who(id: string): string {
  return /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : e(id);
}

export function waiverStateText(waiver: Waiver, now: number): string {
  if (waiver.state === 'active') return now >= waiver.expiresAt ? `expired ${formatUtcDateTime(waiver.expiresAt)}` : `in force until ${formatUtcDateTime(waiver.expiresAt)}`;
  if (waiver.state === 'pending') return 'waiting for an approver';
  return `${waiver.state} by ${who(waiver.closedBy ?? 'unknown')}${waiver.closedAt ? ` at ${formatUtcDateTime(waiver.closedAt)}` : ''}`;
}

/** "`K8S004` on `deployment/orders/orders` (eksworkshop-eksctl)" */
export function waiverSubject(waiver: Waiver): string {
  return `\`${e(waiver.code)}\` on \`${e(waiver.resource)}\` (${e(waiver.cluster)})`;
}

export function waiverLines(waiver: Waiver, now: number): string[] {
  return [
    `_Why:_ ${e(waiver.reason)}`,
    `_Until:_ ${formatUtcDateTime(waiver.expiresAt)} · _State:_ ${waiverStateText(waiver, now)}`,
    `_Asked by_ ${who(waiver.requestedBy)}${waiver.requestedAt ? ` at ${formatUtcDateTime(waiver.requestedAt)}` : ''}${waiver.approvedBy ? ` · _approved by_ ${who(waiver.approvedBy)}${waiver.approvedAt ? ` at ${formatUtcDateTime(waiver.approvedAt)}` : ''}` : ''}`,
  ];
}

/**
 * The card's text as sections of at most 3,000 characters. A reason may hold 1,000 characters (the modal's cap)
 * that escaping makes up to 4,333 (`<` → `&lt;`): it takes as many sections as it needs, whole.
 */
export function waiverSections(waiver: Waiver, now: number, title?: string): KnownBlock[] {
  const icon = waiver.state === 'pending' ? ':memo:' : isInForce(waiver, now) ? ':white_check_mark:' : ':no_entry_sign:';
  const head = `${icon} *Waiver \`${e(waiver.id)}\`* for ${waiverSubject(waiver)}${title ? `\n> ${e(title)}` : ''}`;
  return chunkLines([head, ...waiverLines(waiver, now)]).map((text): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } }));
}

export function renderWaiverCard(waiver: Waiver, now: number, title?: string): SlackMessage {
  const blocks = waiverSections(waiver, now, title);
  const button = (actionId: string, text: string, style?: 'primary' | 'danger') => ({
    type: 'button' as const,
    action_id: actionId,
    text: { type: 'plain_text' as const, text },
    value: waiver.id,
    ...(style ? { style } : {}),
  });
  if (waiver.state === 'pending') blocks.push({ type: 'actions', elements: [button(WAIVER_ACTIONS.approve, 'Approve', 'primary'), button(WAIVER_ACTIONS.reject, 'Reject', 'danger')] });
  else if (isInForce(waiver, now)) blocks.push({ type: 'actions', elements: [button(WAIVER_ACTIONS.revoke, 'Revoke', 'danger')] });
  return { text: fallbackText(`Waiver ${waiver.id} for ${waiver.code} on ${waiver.resource} (${waiver.cluster}): ${waiverStateText(waiver, now)}`), blocks };
}
