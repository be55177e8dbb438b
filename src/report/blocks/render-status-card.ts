/** How each state reads on the card: an emoji to scan for, and a word to read. */

import type { ActionsBlock, Button, KnownBlock, MrkdwnElement } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { StatusCardModel, UpgradeState } from '../../ports/timeline-event.js';
import { BLOCK_LIMITS, contextLine, fallbackText, mrkdwnSection, revisionBlockId, truncate } from './block-kit-limits.js';
import { escapeMrkdwn, formatDuration, formatUtcTime, mention } from '../format-text.js';

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

const FINISHED: ReadonlySet<UpgradeState> = new Set(['succeeded', 'failed', 'aborted']);

/**
 * Pause / Resume / Abort for a running job (the Slack surface handles `job:<verb>` with value {jobId}), and Export
 * timeline for any job. Abort asks for confirmation: it stops the upgrade part-way.
 */
function controlButtons(card: StatusCardModel): Button[] {
  const value = JSON.stringify({ jobId: card.jobId });
  // The record so far, on demand; the full file is uploaded by itself when the job ends.
  const timeline: Button = { type: 'button', action_id: 'job:timeline', text: { type: 'plain_text', text: 'Export timeline' }, value };
  if (FINISHED.has(card.state)) return [timeline];
  const pauseOrResume: Button =
    card.state === 'paused'
      ? { type: 'button', action_id: 'job:resume', text: { type: 'plain_text', text: 'Resume' }, value, style: 'primary' }
      : { type: 'button', action_id: 'job:pause', text: { type: 'plain_text', text: 'Pause' }, value };
  const abort: Button = {
    type: 'button',
    action_id: 'job:abort',
    text: { type: 'plain_text', text: 'Abort' },
    value,
    style: 'danger',
    confirm: {
      title: { type: 'plain_text', text: truncate(`Abort the upgrade of ${card.cluster}?`, BLOCK_LIMITS.confirmTitle) },
      // A confirm's text is a plain_text object (Slack's confirmation dialog reference).
      text: {
        type: 'plain_text',
        text: 'The job stops after the current AWS operation (an in-flight control-plane or node-group update finishes), restores the Karpenter budgets it changed and reports the state.',
      },
      confirm: { type: 'plain_text', text: 'Abort' },
      deny: { type: 'plain_text', text: 'Keep going' },
      style: 'danger',
    },
  };
  return card.dryRun ? [abort, timeline] : [pauseOrResume, abort, timeline];
}

function field(title: string, value: string): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(`*${title}*\n${value}`, BLOCK_LIMITS.fieldText) };
}

/**
 * The parent message of an upgrade thread, kept current with chat.update: one glance tells where the upgrade
 * stands, who started it and for how long it has run. Pure; the thread outbox decides when to send it.
 */
export function renderStatusCard(card: StatusCardModel): SlackMessage {
  const title = `EKS ${card.rollback ? 'rollback' : 'upgrade'} · ${card.rehearsal ? 'REHEARSAL · ' : ''}${card.cluster} ${card.from} → ${card.to}`;
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
  if (card.guards?.length) {
    const icon = { healthy: '🟢', breached: '🔴', unknown: '⚪' } as const;
    const last = Math.max(...card.guards.map((guard) => guard.at));
    blocks.push(contextLine(truncate(`Guards: ${card.guards.map((guard) => `${icon[guard.status]} ${escapeMrkdwn(guard.name)} ${guard.status}`).join(' · ')} (last read ${formatUtcTime(last)})`, BLOCK_LIMITS.contextText)));
  }
  if (card.rehearsal) {
    blocks.push(mrkdwnSection(`🎭 *REHEARSAL* on a simulated twin of ${escapeMrkdwn(card.cluster)}: nothing is changed on the real cluster; gates are answered automatically, and the report ends this thread.`));
  }
  const controls = card.rehearsal ? [] : controlButtons(card);
  const actions: ActionsBlock = { type: 'actions', elements: controls };
  if (controls.length > 0) blocks.push(actions);
  blocks.push(
    contextLine(
      `Started ${formatUtcTime(card.startedAt)} · updated ${formatUtcTime(card.updatedAt)} · ` +
        (card.rehearsal
          ? 'times are the twin\'s simulated clock'
          : FINISHED.has(card.state)
            ? 'the timeline is in this thread' // nothing left to pause, resume or abort
            : 'the timeline is in this thread; controls: `/eks-upgrade pause|resume|abort ' + `${card.cluster}\``),
    ),
  );

  // Slack: "If a message is updated, use a new block_id". The id carries a digest of everything the card shows, so
  // each chat.update that changes the card gives its buttons a new block_id (and one that changes nothing, the same).
  if (controls.length > 0) actions.block_id = revisionBlockId(`job:${card.jobId}`, blocks);
  const progress = card.progress ? ` (${card.progress})` : '';
  const text =
    `${card.dryRun ? '[DRY RUN] ' : ''}${title}: ${STATE_LABELS[card.state].label} — ` +
    `${card.currentStep || 'no step yet'}${progress}; started by ${mention(card.startedBy)}, ${elapsed} elapsed`;
  return { text: fallbackText(text), blocks };
}
