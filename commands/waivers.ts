import type { ClusterConfig } from '../src/config/clusters-config.js';
import { configWaivers } from '../src/waivers/policy/config-waivers.js';
import { contextLine, cutAt, listNames } from '../src/report/blocks/block-kit-limits.js';
import { escapeMrkdwn, formatUtcDateTime } from '../src/report/format-text.js';
import { packLines, paginate, section, type BlockItem } from '../src/report/blocks/slack-pages.js';
import { renderWaiverCard, waiverSubject, who } from '../src/report/blocks/render-waiver-card.js';
import type { WaiverAuditEntry } from '../src/waivers/model/waiver-store.js';
import { attempt } from './routing/command-failure.js';
import { clustersVisibleFrom, type CommandHandler } from './routing/command-context.js';
import { readArgs } from './routing/parse-command.js';

/**
 * `/eks-upgrade waivers [<cluster>]`: every waiver of this channel's clusters — clusters.yaml's (approved in Git) and
 * Slack's with their audit (asked, approved, rejected, revoked: who and when) — newest first. Waivers still pending
 * or in force come as cards with their buttons, so an approver can approve or revoke from here.
 */
export const WAIVERS_LIMIT = 20;
/** response_url takes 5 posts per command: the list uses at most 4, so a failure can still be told. */
const MAX_MESSAGES = 4;
/** In the list, a reason longer than this is cut with a note; the waiver's own card in the channel has it whole. */
const LIST_REASON = 300;

export const waiversCommand: CommandHandler = async (context) => {
  const { deps } = context;
  const command = readArgs('waivers', context.args);
  const clusters = clustersVisibleFrom(deps, context.channelId).filter((cluster) => !command.target || cluster.name === command.target);
  const now = deps.clock.now();
  const items: BlockItem[] = [];
  for (const cluster of clusters) items.push(...configItems(cluster, now));
  if (!deps.waivers) {
    items.push({ blocks: [section('Waivers asked for in Slack cannot be listed: this bot runs without its Redis store.')] });
  } else {
    const store = deps.waivers;
    const names = new Set(clusters.map((cluster) => cluster.name));
    const slack = (await attempt('Reading waivers from Redis', () => store.list(command.target))).filter((waiver) => names.has(waiver.cluster));
    if (slack.length === 0) items.push({ blocks: [section(`No waivers have been asked for in Slack for ${command.target ?? 'these clusters'}.`)] });
    for (const waiver of slack.slice(0, WAIVERS_LIMIT)) {
      const shown = waiver.reason.length > LIST_REASON ? { ...waiver, reason: `${cutAt(waiver.reason, LIST_REASON)} … (cut here; the waiver's card in the channel has the whole reason)` } : waiver;
      const card = renderWaiverCard(shown, now);
      const audit = await store.audit(waiver.id);
      items.push({ blocks: [...(card.blocks ?? []), contextLine(auditText(audit))], counts: { waivers: 1 } });
    }
    if (slack.length > WAIVERS_LIMIT) {
      items.push({ blocks: [section(`…and ${slack.length - WAIVERS_LIMIT} older waivers; \`eks-upgrade waivers\` on the command line lists them all.`)] });
    }
  }
  const scope = command.target ?? listNames(clusters.map((c) => c.name));
  const pages = paginate([{ blocks: [section(`*Waivers for ${scope}*`)] }, ...items], {
    maxMessages: MAX_MESSAGES,
    text: `Waivers for ${scope}`,
    seeAll: '`eks-upgrade waivers` on the command line lists them all',
  });
  for (const page of pages) await context.respond(page);
};

function configItems(cluster: ClusterConfig, now: number): BlockItem[] {
  const waivers = configWaivers(cluster);
  if (waivers.length === 0) return [];
  const lines = waivers.map(
    (waiver) =>
      `• ${waiverSubject(waiver)} until ${formatUtcDateTime(waiver.expiresAt)}${now >= waiver.expiresAt ? ' — *expired*' : ''}: ${escapeMrkdwn(waiver.reason)} (approved by ${who(waiver.approvedBy!)} in clusters.yaml)`,
  );
  // As many sections as the lines need (each ≤ 3,000 characters), each counting its waivers.
  return packLines(lines, 'waivers', `*clusters.yaml waivers of ${escapeMrkdwn(cluster.name)}*`);
}

export function auditText(entries: WaiverAuditEntry[]): string {
  return entries.map((entry) => `${entry.action} by ${who(entry.by)} at ${formatUtcDateTime(entry.at)}`).join(' · ') || 'no audit entries';
}
