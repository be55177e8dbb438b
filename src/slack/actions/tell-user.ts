import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../log/logger.js';
import { fallbackText, mrkdwnSection } from '../../report/blocks/block-kit-limits.js';

/** Where a click happened, so a private answer lands next to the card that was clicked. */
export interface ClickPlace {
  channel: string;
  user: string;
  /** The thread of the card, when the card is a thread reply (gate cards are). */
  threadTs?: string;
}

/**
 * Tells one person something only they see (chat.postEphemeral): refusals, "already answered", "out of date".
 * Slack does not guarantee ephemeral delivery, and a failure here must not hide the outcome from the log, so
 * errors are logged and swallowed.
 */
export async function tellUser(client: WebClient, place: ClickPlace, text: string, logger: Logger): Promise<void> {
  try {
    await client.chat.postEphemeral({
      channel: place.channel,
      user: place.user,
      text: fallbackText(text),
      ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
      blocks: [mrkdwnSection(text)],
    });
  } catch (error) {
    logger.warn({ err: error, channel: place.channel, user: place.user }, 'could not post an ephemeral answer to a click');
  }
}

/** The place of a block_actions click, from the parts of the payload Slack always sends for message buttons. */
export function clickPlace(body: {
  user: { id: string };
  channel?: { id: string };
  container?: Record<string, unknown>;
  message?: { ts: string; thread_ts?: string; [key: string]: unknown };
}): ClickPlace | undefined {
  const channel = body.channel?.id ?? (body.container?.channel_id as string | undefined);
  if (!channel) return undefined;
  const threadTs = (body.message?.thread_ts as string | undefined) ?? (body.container?.thread_ts as string | undefined);
  return { channel, user: body.user.id, ...(threadTs ? { threadTs } : {}) };
}
