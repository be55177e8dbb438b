import { guardWatches, type GuardConfig } from '../config/guards-config.js';
import type { GuardEvaluation } from '../ports/guards/guard-evaluations.js';
import { escapeMrkdwn, formatUtcTime } from './format-text.js';
import { plainValueText } from './render-guard-lines.js';

/**
 * `status <cluster>`'s guards (issue 29): each guard's last evaluation, as the upgrade job or a rollout's soak made
 * it — status never reads a guard itself (guards are read only while a job or a soak runs) — or, honestly, that it
 * has not been evaluated since no job ran. Pure; plain text, escaped where Slack renders it.
 */
export interface GuardStatusRow {
  name: string;
  state: 'healthy' | 'breached' | 'unknown' | 'not evaluated';
  /** The value against the threshold, or why it is unknown; for a guard not evaluated, what it watches. */
  detail: string;
  /** When it was read (ISO 8601) and by what: "upgrade job `u1…`", "the soak of wave 1 of rollout `r1…`". */
  readAt?: string;
  by?: string;
}

/** What status says of a cluster's guards; `unread` when the last evaluations could not be read (a sentence). */
export interface GuardStatus {
  rows: GuardStatusRow[];
  unread?: string;
}

export const NOT_EVALUATED = 'not evaluated since no job ran';

export function guardStatusRows(guards: GuardConfig[], last: Record<string, GuardEvaluation>): GuardStatusRow[] {
  return guards.map((guard) => {
    const evaluation = last[guard.name];
    if (!evaluation) return { name: guard.name, state: 'not evaluated', detail: `watches ${guardWatches(guard)}` };
    const detail = evaluation.status === 'unknown' ? (evaluation.reason ?? 'no reading') : plainValueText(guard, evaluation);
    return { name: guard.name, state: evaluation.status, detail, readAt: new Date(evaluation.at).toISOString(), by: evaluation.by };
  });
}

const ICON: Record<GuardStatusRow['state'], string> = { healthy: '🟢', breached: '🔴', unknown: '⚪', 'not evaluated': '⏳' };

/** One row as text: "🔴 web available: breached, 0 (breached when < 1); read 14:03:07 UTC (2026-12-02) by the soak of …". */
export function guardStatusText(row: GuardStatusRow): string {
  return `${ICON[row.state]} ${row.name}: ${afterName(row)}`;
}

/** The same in mrkdwn, the guard's name in bold. */
export function guardStatusMrkdwn(row: GuardStatusRow): string {
  return `${ICON[row.state]} *${escapeMrkdwn(row.name)}*: ${escapeMrkdwn(afterName(row))}`;
}

function afterName(row: GuardStatusRow): string {
  const read = row.readAt ? `; read ${formatUtcTime(Date.parse(row.readAt))} (${row.readAt.slice(0, 10)}) by ${row.by}` : '';
  return `${row.state === 'not evaluated' ? NOT_EVALUATED : row.state}, ${row.detail}${read}`;
}

/** The heading of the guards' part of a status card. */
export const GUARDS_HEADING = "Guards (each one's last evaluation by an upgrade job or a rollout's soak; status does not read them)";
