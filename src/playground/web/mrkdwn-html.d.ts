/** Types for mrkdwn-html.js (a plain ES module the browser loads as is). */
export interface MentionNames {
  users?: Record<string, string>;
  channels?: Record<string, string>;
}
export function escapeHtml(text: unknown): string;
export function emojify(escaped: string): string;
export function mrkdwnToHtml(text: string | undefined, names?: MentionNames): string;
export function textObjectToHtml(object: unknown, names?: MentionNames): string;
