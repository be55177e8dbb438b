import type { KnownBlock } from '@slack/types';

/** A Slack message as our renderers produce it: Block Kit plus the plain-text fallback Slack requires. */
export interface SlackMessage {
  text: string;
  blocks?: KnownBlock[];
}
