import type { AuditEntry } from '../ports/audit-port.js';

/**
 * The audit trail as people read it, one line per record, newest first: when (UTC), who, what, the outcome, and
 * the reason or sentence they gave or were given. Pure; `escape` makes user-typed text safe for the medium
 * (Slack mrkdwn needs `<`, `>` and `&` as entities so a reason cannot mention @channel or fake a link).
 */
export function auditLines(entries: readonly AuditEntry[], opts: { mention(user: string): string; escape(text: string): string }): string[] {
  return entries.map((entry) => {
    const when = new Date(entry.at).toISOString().replace('T', ' ').slice(0, 19);
    const where = [entry.job && `job ${entry.job}`, entry.gate && `gate ${entry.gate}`].filter(Boolean).join(', ');
    const said = entry.reason ? ` — reason: “${opts.escape(entry.reason)}”` : entry.detail ? ` — ${opts.escape(entry.detail)}` : '';
    return `${when} UTC ${opts.mention(entry.user)} ${entry.action} (${entry.via}): ${entry.outcome}${where ? ` [${where}]` : ''}${said}`;
  });
}

export function renderAuditText(cluster: string, entries: readonly AuditEntry[]): string {
  if (entries.length === 0) return `No audit records for ${cluster}.\n`;
  const lines = auditLines(entries, { mention: (user) => user, escape: (text) => text.replace(/\s+/g, ' ') });
  return `Audit trail of ${cluster}, newest first (${entries.length}):\n${lines.join('\n')}\n`;
}
