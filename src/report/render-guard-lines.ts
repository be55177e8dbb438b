import { guardWatches, type GuardConfig } from '../config/guards-config.js';
import { guardHalts, type GuardTrack } from '../planning/guards/evaluate-guard.js';
import { escapeMrkdwn, formatUtcTime } from './format-text.js';

/**
 * Guards in words (issue 29), for gate cards, the breach card and the thread: each guard's state, the value that
 * decides against its threshold, and since when. Pure.
 *
 *   🟢 *checkout available*: healthy, 1 (breached when < 0.99)
 *   🔴 *checkout available*: breached since 14:03:07 UTC, 0.5 {deployment="checkout"} (breached when < 0.99)
 *   ⚪ *critical alerts*: unknown since 14:03:07 UTC: cannot read guard critical alerts: …
 */
export function guardStateLine(guard: GuardConfig, track: GuardTrack | undefined, overridden?: { by: string }): string {
  const name = `*${escapeMrkdwn(guard.name)}*`;
  if (!track) return `⏳ ${name}: not evaluated yet (${escapeMrkdwn(guardWatches(guard))})`;
  const icon = track.status === 'healthy' ? '🟢' : track.status === 'breached' ? '🔴' : guardHalts(guard, 'unknown') ? '⚪' : '⚫';
  const since = track.status === 'healthy' ? '' : ` since ${formatUtcTime(track.troubleSince ?? track.since)}`;
  const forced = overridden && guardHalts(guard, track.status) ? ` (forced past by ${overridden.by})` : '';
  if (track.status === 'unknown') {
    const ignored = guard.onMissingData === 'ignore' ? ' (onMissingData: ignore, so it does not stop the upgrade)' : '';
    return `${icon} ${name}: unknown${since}: ${escapeMrkdwn(track.reason ?? 'no reading')}${ignored}${forced}`;
  }
  return `${icon} ${name}: ${track.status}${since}, ${valueText(guard, track)}${forced}`;
}

/** The value against the threshold, in mrkdwn: "0.5 {deployment="checkout"} (breached when &lt; 0.99)", "2 alerts firing: A, B". */
export function valueText(guard: GuardConfig, track: Pick<GuardTrack, 'value' | 'subject'>): string {
  return escapeMrkdwn(plainValueText(guard, track));
}

/** valueText as plain text (a terminal, JSON): "0.5 {deployment="checkout"} (breached when < 0.99)". */
export function plainValueText(guard: GuardConfig, track: Pick<GuardTrack, 'value' | 'subject'>): string {
  const source = guard.source;
  if (source.kind === 'prometheus') {
    const value = track.value === undefined ? 'no value' : formatNumber(track.value);
    return `${value}${track.subject ? ` ${track.subject}` : ''} (breached when ${source.breachWhenText})`;
  }
  const count = track.value ?? 0;
  if (source.kind === 'alertmanager') return count === 0 ? 'no matching alert firing' : `${count} alert${count === 1 ? '' : 's'} firing: ${track.subject ?? ''}`;
  return count === 0 ? 'no alarm in ALARM' : `${count} alarm${count === 1 ? '' : 's'} in ALARM: ${track.subject ?? ''}`;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

/** The lines of the breach card (a gate): what breached, against what, since when, where the job stood. */
export function breachCardLines(input: {
  guards: Array<{ guard: GuardConfig; track: GuardTrack | undefined; sparkline?: string }>;
  step?: string;
  inMotion?: string;
  awsOnItsOwn: string[];
  approvers: string[];
  /** The Roll back the card offers (EKS's window open, the control plane moved): to which minor, until when. */
  rollback?: { to: string; until: string };
  /** When every guard that stopped the job had recovered, "14:12:40 UTC" (the card is edited in place). */
  recoveredAt?: string;
}): string[] {
  const lines: string[] = [];
  for (const { guard, track, sparkline } of input.guards) {
    lines.push(guardStateLine(guard, track));
    lines.push(`   watches ${escapeMrkdwn(guardWatches(guard))}`);
    if (sparkline) lines.push(`   last 30 minutes: \`${sparkline}\``);
  }
  lines.push(`The bot stopped${input.step ? ` at step "${escapeMrkdwn(input.step)}"` : ''}: it starts no new drain, termination, node-group or add-on update, and Karpenter's disruption budgets are held at nodes "0".`);
  if (input.inMotion) lines.push(`In motion when it stopped: ${escapeMrkdwn(input.inMotion)}.`);
  lines.push(input.awsOnItsOwn.length > 0 ? `AWS carries on with what the bot started in this step, which it cannot pause: ${input.awsOnItsOwn.map(escapeMrkdwn).join('; ')}.` : 'Nothing the bot started in this step runs on in AWS by itself.');
  if (input.recoveredAt) lines.push(`🟢 Recovered at ${input.recoveredAt}: every guard that stopped the upgrade is healthy again; Resume carries on.`);
  const rollback = input.rollback ? ` Roll back to ${input.rollback.to} (requesters too, until ${input.rollback.until}) aborts the upgrade here and starts the rollback.` : '';
  lines.push(`${input.approvers.join(' ')} Resume carries on once the guards are healthy again; Force resumes while they are not (with a reason, audited);${rollback} Abort ends the upgrade here.`.trim());
  return lines;
}
