import type { ThreadRef } from '../../src/ports/slack/thread-port.js';

/**
 * Link to an upgrade's thread. Slack resolves `https://slack.com/archives/<channel>/p<ts without the dot>` to the
 * message in whatever workspace the reader is signed in to, so no team domain or chat.getPermalink call is needed.
 */
export function threadPermalink(thread: ThreadRef): string {
  return `https://slack.com/archives/${thread.channel}/p${thread.ts.replace('.', '')}`;
}

/** mrkdwn link with a label, e.g. "<https://slack.com/archives/C1/p123|thread>". */
export function threadLink(thread: ThreadRef, label = 'thread'): string {
  return `<${threadPermalink(thread)}|${label}>`;
}
