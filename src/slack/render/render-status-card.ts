import type { KnownBlock, MrkdwnElement } from '@slack/types';
import type { SlackMessage } from '../slack-message.js';
import type { StatusCardModel, UpgradeState } from '../../upgrade/timeline-event.js';
import { BLOCK_LIMITS, contextLine, fallbackText, mrkdwnSection, truncate } from './block-kit-limits.js';
import { escapeMrkdwn, formatDuration, formatUtcTime, mention } from './format-text.js';

/** How each state reads on the card: an emoji to scan for, and a word to read. */
export const STATE_LABELS: Record<UpgradeState, { emoji: string; label: string }> = {
  queued: { emoji: '⏳', label: 'Queued' },
  running: { emoji: '🔄', label: 'Running' },
  'waiting-approval': { emoji: '✋', label: 'Waiting for approval' },
  paused: { emoji: '⏸️', label: 'Paused' },
  succeeded: { emoji: '✅', label: 'Succeeded' },
  failed: { emoji: '❌', label: 'Failed' },
  aborted: { emoji: '⛔', label: 'Aborted' },
};

export function stateLabel(state: UpgradeState): string {
  const { emoji, label } = STATE_LABELS[state];
  return `${emoji} ${label}`;
}

function field(title: string, value: string): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(`*${title}*\n${value}`, BLOCK_LIMITS.fieldText) };
}

/**
 * The parent message of an upgrade thread, kept current with chat.update: one glance tells where the upgrade
 * stands, who started it and for how long it has run. Pure; the thread outbox decides when to send it.
 */
export function renderStatusCard(card: StatusCardModel): SlackMessage {
  const title = `EKS upgrade · ${card.cluster} ${card.from} → ${card.to}`;
  const elapsed = formatDuration(card.updatedAt - card.startedAt);
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(title, BLOCK_LIMITS.headerText), emoji: true } },
  ];
  if (card.dryRun) {
    blocks.push(mrkdwnSection('🧪 *DRY RUN* — read-only: the job reports what each step would do and changes nothing.'));
  }
  blocks.push({
    type: 'section',
    fields: [
      field('State', stateLabel(card.state)),
      field('Current step', escapeMrkdwn(card.currentStep || '—')),
      field('Progress', escapeMrkdwn(card.progress || '—')),
      field('Started by', mention(card.startedBy)),
      field('Elapsed', elapsed),
      field('Job', `\`${card.jobId}\``),
    ],
  });
  blocks.push(
    contextLine(
      `Started ${formatUtcTime(card.startedAt)} · updated ${formatUtcTime(card.updatedAt)} · ` +
        'the timeline is in this thread; controls: `/eks-upgrade pause|resume|abort ' +
        `${card.cluster}\``,
    ),
  );

  const progress = card.progress ? ` (${card.progress})` : '';
  const text =
    `${card.dryRun ? '[DRY RUN] ' : ''}${title}: ${STATE_LABELS[card.state].label} — ` +
    `${card.currentStep || 'no step yet'}${progress}; started by ${mention(card.startedBy)}, ${elapsed} elapsed`;
  return { text: fallbackText(text), blocks };
}
