/** The fleet digest and the support-deadline reminder as Slack messages, from the rows src/report/digest.ts builds. */

import type { KnownBlock } from '@slack/types';
import { formatMinutes } from '../../ports/upgrade-plan.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import {
  EXTENDED_SUPPORT_PER_HOUR, EXTENDED_SUPPORT_PER_MONTH, HOURS_PER_MONTH, STANDARD_SUPPORT_PER_HOUR, URGENCY_ICON,
  formatDollars, formatInZone, sortByUrgency, summaryLine, type DigestHeading, type DigestRow,
} from '../digest.js';
import { BLOCK_LIMITS, contextLine, fallbackText, mrkdwnSection, truncate } from './block-kit-limits.js';

/** The digest as one Slack message: a header, one section per cluster with its Plan button, and a note. */
export function renderDigestMessage(rows: DigestRow[], heading: DigestHeading): SlackMessage {
  const sorted = sortByUrgency(rows);
  const title = `Fleet digest · ${sorted.length} cluster${sorted.length === 1 ? '' : 's'} · ${formatInZone(heading.at, heading.timezone)}`;
  // One header, one context and the "more" line leave the rest of Slack's 50 blocks to clusters.
  const room = BLOCK_LIMITS.blocksPerMessage - 3;
  const shown = sorted.slice(0, room);
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(title, 150) } },
    ...shown.map((row) => rowBlock(row)),
  ];
  if (sorted.length > shown.length) {
    blocks.push(contextLine(`… ${sorted.length - shown.length} more clusters: \`npx eks-upgrade digest\` prints them all.`));
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `${heading.trigger}. Most urgent first. Extended support costs ${formatDollars(EXTENDED_SUPPORT_PER_MONTH)} a cluster-month ($${EXTENDED_SUPPORT_PER_HOUR.toFixed(2)} instead of $${STANDARD_SUPPORT_PER_HOUR.toFixed(2)} per cluster-hour, ${HOURS_PER_MONTH} h). *Plan* posts the next upgrade's plan in this thread.` }],
  });
  const text = [title, ...sorted.map((row) => `${row.cluster}: ${summaryLine(row, false)}`)].join('\n');
  return { text: fallbackText(text), blocks };
}

function rowBlock(row: DigestRow): KnownBlock {
  if (row.error) {
    return { type: 'section', text: { type: 'mrkdwn', text: truncate(`${URGENCY_ICON(row)} *${row.cluster}* (${row.region}): could not be read: ${row.error}`, 3000) } };
  }
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(`${URGENCY_ICON(row)} *${row.cluster}* ${summaryLine(row, true)}`, 3000) },
    accessory: { type: 'button', text: { type: 'plain_text', text: 'Plan' }, action_id: 'fleet:plan', value: row.cluster },
  };
}

export function renderReminder(row: DigestRow, threshold: number, now: number): SlackMessage {
  const when = row.standardDaysLeft === 0 ? 'today' : `in ${row.standardDaysLeft} day${row.standardDaysLeft === 1 ? '' : 's'}`;
  const policy = row.upgradePolicy === 'STANDARD' ? 'EKS will then upgrade it automatically' : `it then moves to extended support at ${formatDollars(EXTENDED_SUPPORT_PER_MONTH)} a month`;
  const head = `:alarm_clock: *${row.cluster}* (${row.version}): standard support ends ${row.endOfStandardSupport}, ${when}; ${policy}.`;
  const plan = row.nextMinor
    ? `Plan for ${row.nextMinor}: ${row.blocking ?? 0} blocking finding${row.blocking === 1 ? '' : 's'}, ${row.planSteps ?? 0} steps, ${formatMinutes(row.planMinutes ?? 0)}.`
    : `No plan: ${row.planError ?? 'no newer minor is offered'}.`;
  const text = `${head} ${plan} (Reminder at ${threshold} days.)`;
  return {
    text: fallbackText(text.replace(':alarm_clock: ', '').replace(/\*/g, '')),
    blocks: [
      mrkdwnSection(`${head}\n${plan}`),
      contextLine(`Reminder ${threshold} days before the end of standard support (clusters.yaml \`reminders.daysBefore\`). As of ${formatInZone(now, 'UTC')}.`),
      ...(row.nextMinor
        ? [{ type: 'actions' as const, block_id: `fleet:reminder:${row.cluster}`, elements: [
            { type: 'button' as const, text: { type: 'plain_text' as const, text: `Start upgrade to ${row.nextMinor}` }, style: 'primary' as const, action_id: 'fleet:start', value: JSON.stringify({ cluster: row.cluster, to: row.nextMinor }) },
            { type: 'button' as const, text: { type: 'plain_text' as const, text: 'Plan' }, action_id: 'fleet:plan', value: row.cluster },
          ] }]
        : []),
    ],
  };
}
