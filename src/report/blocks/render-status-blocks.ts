/**
 * `status` in Slack: one cluster as a card (versions, support, nodes by compute type with skew, add-ons, insights,
 * running job); several as a compact list, one line per cluster, error rows included. Pure; split over several
 * messages when a fleet does not fit in one.
 */

import { GUARDS_HEADING, guardStatusMrkdwn } from '../guard-status.js';
import type { KnownBlock } from '@slack/types';
import { BLOCK_LIMITS, fallbackText, truncate } from './block-kit-limits.js';
import { escapeMrkdwn } from '../format-text.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { ClusterStatus } from '../cluster-status.js';
import { context, packLines, paginate, section, type BlockItem } from './slack-pages.js';
import {
  addonSummary,
  addonUpdateText,
  clusterKubeletSummary,
  computeText,
  insightsText,
  kubeletText,
  nextText,
  skewText,
  supportText,
  unreadSummary,
  worstSkew,
} from '../status-words.js';

export interface StatusBlocksOptions {
  maxMessages?: number;
}

const e = escapeMrkdwn;

function statusEmoji(status: ClusterStatus): string {
  if (status.error) return ':x:';
  if (status.status !== 'ACTIVE' || status.problems.length > 0 || status.nodes.some((g) => !g.skew.withinPolicy)) return ':warning:';
  return ':large_green_circle:';
}

function jobLine(status: ClusterStatus): string {
  const job = status.activeJob;
  return job ? `${job.from} → ${job.to} *${job.state}* (step ${e(job.currentStep)}) — <${job.threadUrl}|thread>` : 'none';
}

/** The plain-text fallback (notifications, screen readers): the headline, then one line per node group. */
function headlineText(status: ClusterStatus): string {
  if (status.error) return `*${status.name}*: :warning: ${status.error}`;
  return `*${status.name}*: control plane ${status.version} (platform ${status.platformVersion ?? '?'}), ${status.status}`;
}

function cardText(status: ClusterStatus): string {
  const groups = status.nodes.map((g) => `${computeText(g)} \`${g.name}\`: ${g.nodes} node${g.nodes === 1 ? '' : 's'}${g.nodes > 0 ? `, kubelet ${kubeletText(g)}` : ''}`);
  return [headlineText(status), ...groups].join('\n');
}

export function renderClusterCard(status: ClusterStatus): BlockItem[] {
  const title = `${statusEmoji(status)} *${e(status.name)}* (${status.region})`;
  if (status.error) return [{ blocks: [section(`${title}\nCould not be read: ${e(status.error)}`)], counts: { clusters: 1 } }];
  const next = status.support?.nextMinor;
  const items: BlockItem[] = [
    {
      blocks: [
        section(`${title} — control plane *${status.version}* (platform ${status.platformVersion ?? '?'}), *${status.status}*`),
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: truncate(`*Support*\n${supportText(status.support)}`, BLOCK_LIMITS.fieldText) },
            { type: 'mrkdwn', text: truncate(`*Upgrade policy*\n${status.support?.upgradePolicy ?? 'unknown'}`, BLOCK_LIMITS.fieldText) },
            { type: 'mrkdwn', text: truncate(`*Next version*\n${nextText(status.support)}`, BLOCK_LIMITS.fieldText) },
            { type: 'mrkdwn', text: truncate(`*Upgrade insights*\n${insightsText(status)}`, BLOCK_LIMITS.fieldText) },
            { type: 'mrkdwn', text: truncate(`*Upgrade job*\n${jobLine(status)}`, BLOCK_LIMITS.fieldText) },
          ],
        },
      ],
    },
  ];
  const nodeLines = status.nodes.map(
    (g) => `• ${computeText(g)} \`${e(g.name)}\`: ${g.nodes} node${g.nodes === 1 ? '' : 's'}${g.nodes > 0 ? `, kubelet ${e(kubeletText(g))} — ${skewText(g)}` : ''}`,
  );
  items.push(...packLines(nodeLines.length > 0 ? nodeLines : ['• none read'], 'clusters', '*Nodes*').map((item) => ({ blocks: item.blocks })));
  const addonLines = status.addons.map(
    (a) =>
      `• \`${e(a.name)}\` ${e(a.version)} — default ${status.version}: ${e(a.defaultForCurrent ?? '?')}, ${next ?? 'next'}: ${e(a.defaultForNext ?? '?')} — ${e(addonUpdateText(a, next))}`,
  );
  items.push(...packLines(addonLines.length > 0 ? addonLines : ['• none read'], 'clusters', '*Add-ons*').map((item) => ({ blocks: item.blocks })));
  if (status.guards) {
    const lines = status.guards.unread ? [`• ${e(status.guards.unread)}`] : status.guards.rows.map((row) => `• ${guardStatusMrkdwn(row)}`);
    items.push(...packLines(lines, 'clusters', `*${GUARDS_HEADING}*`).map((item) => ({ blocks: item.blocks })));
  }
  if (status.rollback) {
    const blocking = status.rollback.blocking.length > 0 ? ` — blocking now: ${status.rollback.blocking.map(e).join('; ')}` : ' — no blocking rollback insight';
    items.push({ blocks: [context(`:rewind: ${e(status.rollback.text)}${blocking} (\`/eks-upgrade rollback ${e(status.name)}\`)`)] });
  }
  if (status.problems.length > 0) items.push({ blocks: [context(`:warning: Not read: ${e(status.problems.join(' · '))}`)] });
  items[items.length - 1].counts = { clusters: 1 };
  return items;
}

function clusterLine(status: ClusterStatus): string {
  if (status.error) return `:x: \`${e(status.name)}\` (${status.region}) — could not be read: ${e(status.error)}`;
  const job = status.activeJob ? ` · job ${status.activeJob.from}→${status.activeJob.to} ${status.activeJob.state} <${status.activeJob.threadUrl}|thread>` : '';
  const problems = status.problems.length > 0 ? ` · not read: ${e(unreadSummary(status))}` : '';
  const insights = status.insights ? `insights ${status.insights.error}E/${status.insights.warning}W` : 'insights not read';
  return `${statusEmoji(status)} \`${e(status.name)}\` ${status.version} (${status.platformVersion ?? '?'}) ${status.status} · ${supportText(status.support)} · kubelets ${clusterKubeletSummary(status)} (skew ${worstSkew(status)}) · add-ons ${addonSummary(status)} · ${insights}${job}${problems}`;
}

export function renderStatusMessages(statuses: readonly ClusterStatus[], options: StatusBlocksOptions = {}): SlackMessage[] {
  const maxMessages = options.maxMessages ?? 4;
  if (statuses.length === 1) {
    const s = statuses[0];
    return paginate(renderClusterCard(s), { maxMessages, text: fallbackText(cardText(s)), seeAll: `run \`npx eks-upgrade status ${s.name}\` for everything` });
  }
  const failed = statuses.filter((s) => s.error).length;
  const headline = `*${statuses.length} clusters*${failed ? ` — ${failed} could not be read` : ''}`;
  const head: BlockItem = { blocks: [section(headline)] };
  const body = packLines(statuses.map(clusterLine), 'clusters');
  const tail: KnownBlock[] = [context('`/eks-upgrade status &lt;cluster&gt;` shows one cluster in full.')];
  const messages = paginate([head, ...body], {
    maxMessages,
    text: fallbackText([`Status of ${statuses.length} clusters${failed ? ` (${failed} could not be read)` : ''}`, ...statuses.map(headlineText)].join('\n')),
    seeAll: 'run `npx eks-upgrade status --all` for the full table',
  });
  const last = messages[messages.length - 1];
  if ((last.blocks?.length ?? 0) < 50) last.blocks = [...(last.blocks ?? []), ...tail];
  return messages;
}
