import type { KnownBlock } from '@slack/types';
import type { ClusterConfig } from '../src/config/clusters-config.js';
import { configWaivers } from '../src/planning/plan-policy.js';
import { formatUtcDateTime } from '../src/report/format-text.js';
import { renderWaiverCard, waiverSubject, who } from '../src/slack/render/render-waiver-card.js';
import type { SlackMessage } from '../src/ports/slack-message.js';
import type { WaiverAuditEntry } from '../src/ports/waiver-store.js';
import { attempt } from './command-failure.js';
import { clustersVisibleFrom, type CommandHandler } from './command-context.js';
import { readArgs } from './parse-command.js';

/**
 * `/eks-upgrade waivers [<cluster>]`: every waiver of this channel's clusters — clusters.yaml's (approved in Git) and
 * Slack's with their audit (asked, approved, rejected, revoked: who and when) — newest first. Waivers still pending
 * or in force come as cards with their buttons, so an approver can approve or revoke from here.
 */
export const WAIVERS_LIMIT = 20;

export const waiversCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('waivers', context.args);
  const clusters = clustersVisibleFrom(deps, context.channelId).filter((cluster) => !command.target || cluster.name === command.target);
  const now = deps.clock.now();
  const blocks: KnownBlock[] = [];
  for (const cluster of clusters) blocks.push(...configSection(cluster, now));
  if (!deps.waivers) {
    blocks.push(section('Waivers asked for in Slack cannot be listed: this bot runs without its Redis store.'));
  } else {
    const store = deps.waivers;
    const names = new Set(clusters.map((cluster) => cluster.name));
    const slack = (await attempt('Reading waivers from Redis', () => store.list(command.target))).filter((waiver) => names.has(waiver.cluster));
    if (slack.length === 0) blocks.push(section(`No waivers have been asked for in Slack for ${command.target ?? 'these clusters'}.`));
    for (const waiver of slack.slice(0, WAIVERS_LIMIT)) {
      const card = renderWaiverCard(waiver, now);
      const audit = await store.audit(waiver.id);
      blocks.push(...(card.blocks ?? []), { type: 'context', elements: [{ type: 'mrkdwn', text: auditText(audit) }] });
    }
    if (slack.length > WAIVERS_LIMIT) blocks.push(section(`…and ${slack.length - WAIVERS_LIMIT} older waivers.`));
  }
  await context.respond(message(blocks, command.target ?? clusters.map((c) => c.name).join(', ')));
};

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function configSection(cluster: ClusterConfig, now: number): KnownBlock[] {
  const waivers = configWaivers(cluster);
  if (waivers.length === 0) return [];
  const lines = waivers.map(
    (waiver) =>
      `• ${waiverSubject(waiver)} until ${formatUtcDateTime(waiver.expiresAt)}${now >= waiver.expiresAt ? ' — *expired*' : ''}: ${waiver.reason} (approved by ${who(waiver.approvedBy!)} in clusters.yaml)`,
  );
  return [section(`*clusters.yaml waivers of ${cluster.name}*\n${lines.join('\n')}`)];
}

export function auditText(entries: WaiverAuditEntry[]): string {
  return entries.map((entry) => `${entry.action} by ${who(entry.by)} at ${formatUtcDateTime(entry.at)}`).join(' · ') || 'no audit entries';
}

function message(blocks: KnownBlock[], scope: string): SlackMessage {
  // Slack takes at most 50 blocks per message; the list is capped well below (WAIVERS_LIMIT cards of ≤3 blocks).
  return { text: `Waivers for ${scope}`, blocks: [section(`*Waivers for ${scope}*`), ...blocks].slice(0, 50) };
}
