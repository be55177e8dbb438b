/** The start command waits for this; a couple of quick retries are worth it, a long outage is not. */

import { randomUUID } from 'node:crypto';
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Clock } from '../../ports/clock.js';
import type { ThreadRef } from '../../ports/slack/thread-port.js';
import type { StatusCardModel } from '../../ports/timeline-event.js';
import { renderStatusCard } from '../../report/blocks/render-status-card.js';
import { findPostedTopLevel, outboxMetadata } from './find-posted-message.js';
import { mayHaveTakenEffect, slackErrorVerdict, type RetryPolicy } from './slack-error-verdict.js';

const OPEN_ATTEMPTS = 3;
const OPEN_MAX_WAIT_MS = 10_000;

/** What the person who typed `start` should do about a failure, by Slack error code. */
function advice(error: unknown): string {
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  if (e?.code === ErrorCode.RateLimitedError) return `Slack is rate limiting the bot (retry after ${e.retryAfter}s). Try again in a minute.`;
  if (e?.code === ErrorCode.RequestError) return 'Slack could not be reached. Try again shortly; if it persists check the network and SLACK_API_URL.';
  if (e?.code === ErrorCode.HTTPError) return `Slack answered HTTP ${e.statusCode}. Try again shortly.`;
  const code = e?.data?.error ?? (error instanceof Error ? error.message : String(error));
  switch (code) {
    case 'not_in_channel':
      return 'Slack answered not_in_channel: invite the bot to the channel (/invite @eks-upgrade), then start again.';
    case 'channel_not_found':
      return 'Slack answered channel_not_found: the channel does not exist or the bot cannot see it; check `channels` in clusters.yaml.';
    case 'is_archived':
      return 'Slack answered is_archived: the channel is archived; use an active channel listed in clusters.yaml.';
    case 'invalid_auth':
    case 'not_authed':
    case 'token_revoked':
    case 'token_expired':
    case 'account_inactive':
      return `Slack rejected the bot token (${code}): check SLACK_BOT_TOKEN and that the app is still installed.`;
    case 'missing_scope':
      return 'Slack answered missing_scope: the app lacks chat:write; reinstall it from manifest.yml.';
    default:
      return `Slack answered ${code}. Try again; if it persists, see the bot's logs.`;
  }
}

/**
 * Posts the parent status card right away (not through the outbox): the start command needs the thread's ts
 * before it enqueues the job, and must tell the user at once when the bot cannot post in the channel.
 *
 * A retry after an answer that was lost (5xx, dropped connection) first looks for the card in the channel by the id
 * in its metadata, so a flaky Slack does not leave two parent cards (and an orphaned thread) behind.
 */
export async function openThread(
  client: WebClient,
  clock: Clock,
  retry: RetryPolicy,
  channel: string,
  card: StatusCardModel,
  postId: string = randomUUID(),
): Promise<ThreadRef> {
  const message = renderStatusCard(card);
  let checkFirst = false;
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    let result: { ts?: string; channel?: string };
    try {
      const found = checkFirst ? await findPostedTopLevel(client, channel, postId) : undefined;
      checkFirst = false;
      result = found
        ? { ts: found, channel }
        : await client.chat.postMessage({
            channel,
            text: message.text,
            blocks: message.blocks,
            metadata: outboxMetadata(postId, `open:${card.jobId}`),
            unfurl_links: false,
            unfurl_media: false,
          });
    } catch (error) {
      const verdict = slackErrorVerdict(error, failures, retry);
      const transient = verdict.action === 'retry' && !verdict.configuration;
      if (checkFirst && !transient) {
        // The look-up failed for good (e.g. missing_scope: no channels:history / groups:history). Slack will not
        // say whether it has the card; post it again rather than fail the start.
        checkFirst = false;
        continue;
      }
      // After a failed look-up checkFirst stays set; after a post whose answer was lost it is set now.
      if (mayHaveTakenEffect(error)) checkFirst = true;
      if (verdict.action === 'retry' && verdict.backoff) failures++;
      if (transient && attempt + 1 < OPEN_ATTEMPTS && verdict.afterMs <= OPEN_MAX_WAIT_MS) {
        await clock.sleep(verdict.afterMs);
        continue;
      }
      throw new Error(`opening the upgrade thread in channel ${channel} failed: ${advice(error)}`, { cause: error });
    }
    if (typeof result.ts !== 'string') {
      throw new Error(`opening the upgrade thread in channel ${channel} failed: Slack returned no message ts. Try again.`);
    }
    // Slack answers with the channel id even when given a name; the thread must be addressed by id.
    return { channel: typeof result.channel === 'string' ? result.channel : channel, ts: result.ts };
  }
}
