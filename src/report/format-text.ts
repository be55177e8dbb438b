/**
 * Small text conventions shared by every renderer (Slack cards and the Markdown timeline), so a duration or a time
 * reads the same everywhere: "12m 30s", "14:03:07 UTC", "2024-05-01 14:03:07 UTC".
 */

/** "<1s", "45s", "12m 30s", "2h 05m". Negative or non-finite inputs (clock skew between workers) read as "0s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  if (ms < 1000) return '<1s';
  const totalSeconds = Math.floor(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

/** "14:03:07 UTC": what a reader of the thread needs next to an event of the same day. */
export function formatUtcTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;
}

/** "2024-05-01 14:03:07 UTC": the exported timeline outlives the day, so it carries the date. */
export function formatUtcDateTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/**
 * A Slack mention for a user (U…/W…) or user-group (S…) id; text that is already a mention or not an id (e.g.
 * "the scheduler") is returned unchanged so renderers never produce a broken `<@…>`.
 */
export function mention(id: string): string {
  if (id.startsWith('<')) return id;
  if (/^S[A-Z0-9]{2,}$/.test(id)) return `<!subteam^${id}>`;
  if (/^[UW][A-Z0-9]{2,}$/.test(id)) return `<@${id}>`;
  return id;
}

/** Slack mrkdwn treats &, < and > as control characters; free text from AWS or Kubernetes must be escaped. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
