import type { KnownBlock } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { RollbackOffer, TimelineEvent } from '../../ports/timeline-event.js';
import { BLOCK_LIMITS, contextLine, fallbackText, fitBlocks, linesToSections, mrkdwnSection, truncate, truncateLine } from './block-kit-limits.js';
import { escapeMrkdwn, formatDuration, formatUtcTime } from '../format-text.js';
import { renderGateCard } from './render-gate-card.js';
import { formatUtc } from '../../planning/rollback-preflight.js';
import { stateLabel } from './render-status-card.js';

const DEFAULT_FAILURE_ADVICE =
  'Fix the cause, then `/eks-upgrade resume &lt;cluster&gt;` to retry this step, or `/eks-upgrade abort &lt;cluster&gt;` ' +
  'to stop the upgrade and restore what it changed.';

/** Sections of a summary's step table / lines that a single reply may carry before pointing at the export. */
const MAX_SUMMARY_SECTIONS = 6;

function at(epochMs: number, extra?: string): KnownBlock {
  return contextLine(`${formatUtcTime(epochMs)}${extra ? ` · ${extra}` : ''}`);
}

/** A fixed-width step table inside a code fence: Slack has no tables in mrkdwn, but aligned columns read well. */
export function stepTableLines(steps: Array<{ title: string; durationMs: number; outcome: string }>): string[] {
  const width = Math.min(40, Math.max(4, ...steps.map((s) => s.title.length)));
  const pad = (text: string, n: number) => truncate(text, n).padEnd(n);
  return [
    `${pad('Step', width)}  ${'Duration'.padStart(8)}  Outcome`,
    ...steps.map((s) => `${pad(s.title, width)}  ${formatDuration(s.durationMs).padStart(8)}  ${s.outcome}`),
  ].map(escapeMrkdwn);
}

function renderSummary(event: Extract<TimelineEvent, { kind: 'summary' }>): SlackMessage {
  const total = event.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const heading = `${event.rehearsal ? 'REHEARSAL of the upgrade' : event.rollbackJob ? 'Rollback' : 'Upgrade'} ${event.from} → ${event.to}: ${stateLabel(event.state)}`;
  const body: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(`🏁 ${heading}`, BLOCK_LIMITS.headerText), emoji: true } },
  ];
  if (event.steps.length > 0) {
    body.push(mrkdwnSection(`*Steps* (${event.steps.length}, ${formatDuration(total)} in all)`));
    body.push(...linesToSections(stepTableLines(event.steps), MAX_SUMMARY_SECTIONS, { before: '```\n', after: '\n```' }));
  }
  if (event.lines.length > 0) {
    body.push(...linesToSections(event.lines.map((line) => `• ${line}`), MAX_SUMMARY_SECTIONS));
  }
  if (event.decisions && event.decisions.length > 0) {
    // Outside the code block, so <@U…> renders as a mention.
    body.push(...linesToSections(['*Decisions*', ...event.decisions.map((line) => `• ${line}`)], MAX_SUMMARY_SECTIONS));
  }
  if (event.rollback) body.push(...rollbackOfferBlocks(event.rollback));
  const tail = [at(event.at, 'the full timeline is attached to this thread')];
  const text = `${heading}. ${event.steps.map((s) => `${s.title} ${formatDuration(s.durationMs)} (${s.outcome})`).join('; ')}`;
  return { text: fallbackText(text), blocks: fitBlocks(body, tail) };
}

/**
 * One thread reply per timeline event, written like an incident timeline: what happened, to which step, when, and
 * for failures what to do next. Gate events delegate to the gate card so a gate reads the same open or answered.
 */
export function renderTimelineEvent(event: TimelineEvent): SlackMessage {
  switch (event.kind) {
    case 'step-started':
      return {
        text: fallbackText(`Started: ${event.title}`),
        blocks: [mrkdwnSection(`▶️ *${escapeMrkdwn(event.title)}* started`), at(event.at, `step \`${event.step}\``)],
      };
    case 'step-finished': {
      const duration = formatDuration(event.durationMs);
      const blocks: KnownBlock[] = [mrkdwnSection(`✅ *${escapeMrkdwn(event.title)}* finished in ${duration}`)];
      if (event.summary) blocks.push(mrkdwnSection(event.summary));
      blocks.push(at(event.at, `step \`${event.step}\``));
      const summary = event.summary ? ` — ${event.summary}` : '';
      return { text: fallbackText(`Finished: ${event.title} in ${duration}${summary}`), blocks };
    }
    case 'step-failed': {
      const error = truncateLine(escapeMrkdwn(event.error), BLOCK_LIMITS.sectionText - 20);
      const blocks: KnownBlock[] = [
        mrkdwnSection(`❌ *${escapeMrkdwn(event.title)}* failed`),
        mrkdwnSection(`*Error*\n\`\`\`${error}\`\`\``),
        mrkdwnSection(`*What to do*\n${event.remedy ?? DEFAULT_FAILURE_ADVICE}`),
        ...(event.rollback ? rollbackOfferBlocks(event.rollback) : []),
        at(event.at, `step \`${event.step}\``),
      ];
      return { text: fallbackText(`Failed: ${event.title}: ${event.error}`), blocks };
    }
    case 'progress':
      return {
        text: fallbackText(`${event.step}: ${event.text}`),
        blocks: [mrkdwnSection(`⏳ ${event.text}`), at(event.at, `step \`${event.step}\``)],
      };
    case 'note': {
      const icon = event.level === 'warning' ? '⚠️' : 'ℹ️';
      const lines = event.text.split('\n');
      const body = linesToSections([`${icon} ${lines[0]}`, ...lines.slice(1)], 10);
      return { text: fallbackText(`${icon} ${event.text}`), blocks: fitBlocks(body, [at(event.at)]) };
    }
    case 'gate-opened':
      return renderGateCard(event.gate);
    case 'gate-answered':
      return renderGateCard(event.gate, { action: event.action, by: event.by, at: event.at, reason: event.reason });
    case 'summary':
      return renderSummary(event);
  }
}

/** The action id of the Roll back button (src/slack/actions/rollback-action.ts answers it). */
export const ROLLBACK_ACTION_ID = 'rollback:start';

/**
 * "Roll back to 1.30" with the date it works until; once `now` is past that date, a plain line instead (a card
 * re-rendered after the window closed). The click is checked again when it arrives.
 */
export function rollbackOfferBlocks(offer: RollbackOffer, now?: number): KnownBlock[] {
  const until = formatUtc(offer.until);
  if (now !== undefined && now > offer.until) {
    return [contextLine(`Rolling ${offer.cluster} back to ${offer.to} was possible until ${until}; EKS's 7-day window has closed.`)];
  }
  return [
    {
      type: 'actions',
      block_id: 'rollback',
      elements: [
        {
          type: 'button',
          action_id: ROLLBACK_ACTION_ID,
          text: { type: 'plain_text', text: `Roll back to ${offer.to}` },
          style: 'danger',
          value: JSON.stringify({ jobId: offer.jobId, cluster: offer.cluster, to: offer.to, until: offer.until }),
          confirm: {
            title: { type: 'plain_text', text: 'Roll back?' },
            text: { type: 'plain_text', text: truncate(`Start rolling ${offer.cluster} back to ${offer.to}: node groups and add-ons first, then after an approval the control plane.`, BLOCK_LIMITS.confirmText) },
            confirm: { type: 'plain_text', text: 'Start the rollback' },
            deny: { type: 'plain_text', text: 'Cancel' },
          },
        },
      ],
    },
    contextLine(`Roll back works until ${until} (EKS allows a rollback for 7 days after the in-place upgrade).`),
  ];
}
