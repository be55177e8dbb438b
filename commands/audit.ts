import type { SlackMessage } from '../src/ports/slack/slack-message.js';
import { BLOCK_LIMITS, contextLine, fallbackText, mrkdwnSection, pageLines } from '../src/report/blocks/block-kit-limits.js';
import { auditLines } from '../src/report/render-audit.js';
import { attempt } from './routing/command-failure.js';
import type { CommandHandler } from './routing/command-context.js';
import { escapeAngles } from './routing/command-usage.js';
import { readArgs } from './routing/parse-command.js';

/** How many records `audit` shows in Slack; the CLI (`eks-upgrade audit --limit`) reads more, as JSON too. */
export const AUDIT_LIMIT = 25;

/**
 * `/eks-upgrade audit <cluster>`: the cluster's durable audit trail — starts, gate answers, Force reasons, pauses,
 * resumes, aborts and every refusal — newest first. Anyone in a channel that may drive the cluster may read it.
 */
export const auditCommand: CommandHandler = async (context) => {
  const command = readArgs('audit', context.args);
  const cluster = command.target!;
  const entries = await attempt(`Reading the audit trail of ${cluster}`, () => context.deps.audit.read(cluster, { limit: AUDIT_LIMIT }));
  await context.respond(renderAudit(cluster, entries.length, auditLines(entries, { mention: (user) => `<@${user}>`, escape: escapeAngles })));
};

export function renderAudit(cluster: string, count: number, lines: string[]): SlackMessage {
  if (count === 0) {
    const text = `No audit records for ${cluster} yet.`;
    return { text, blocks: [mrkdwnSection(text)] };
  }
  const header = `*Audit trail of ${cluster}*, newest first (last ${count}):`;
  // As many sections as the lines need (≤ 3,000 characters each); the fallback text only says what this is.
  const [page] = pageLines(lines, { charsPerPage: BLOCK_LIMITS.messageChars - 1000 });
  const shown = page?.lines ?? 0;
  return {
    text: fallbackText(`Audit trail of ${cluster}: the last ${count} records, newest first`),
    blocks: [
      mrkdwnSection(header),
      ...(page?.sections ?? []).map((text) => mrkdwnSection(text)),
      ...(shown < lines.length ? [contextLine(`… ${lines.length - shown} older records did not fit in one message: \`eks-upgrade audit ${cluster} --limit ${count}\` on the command line shows them all.`)] : []),
    ],
  };
}
