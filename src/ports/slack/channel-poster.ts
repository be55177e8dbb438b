import type { SlackMessage } from './slack-message.js';

/** Plain channel messages (the fleet digest and reminders), not part of an upgrade thread. */
export interface ChannelPoster {
  /** Posts to `channel` (in the thread of `threadTs` when given); resolves with the message's ts, throws when Slack refuses. */
  post(channel: string, message: SlackMessage, threadTs?: string): Promise<{ ts: string }>;
}
