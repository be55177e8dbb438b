import { ErrorCode, type WebClient } from '@slack/web-api';
import type { ChannelPoster } from '../ports/slack/channel-poster.js';

/** How many 429s in a row one post rides out before it gives up (each waits Slack's Retry-After). */
const RATE_LIMIT_ATTEMPTS = 10;

/**
 * ChannelPoster over chat.postMessage. Duplicates are the caller's business (the fleet worker claims each tick first).
 * A 429 is retried after Slack's Retry-After: it means Slack did not take the post, so a retry cannot duplicate it
 * (https://docs.slack.dev/apis/web-api/rate-limits). The client is the bot's (src/slack/slack-web-client.ts), which
 * rejects a rate-limited call at once with its Retry-After; a client with rejectRateLimitedCalls off has already
 * waited Retry-After when it reports the rate limit as a request error.
 */
export function createChannelPoster(client: WebClient, sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))): ChannelPoster {
  return {
    async post(channel, message, threadTs) {
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await client.chat.postMessage({ channel, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}), ...(threadTs ? { thread_ts: threadTs } : {}) });
          if (!answer.ts) throw new Error(`Slack did not return the ts of the message posted to ${channel}`);
          return { ts: answer.ts };
        } catch (error) {
          const wait = rateLimitWait(error);
          if (wait === undefined || attempt >= RATE_LIMIT_ATTEMPTS) throw error;
          await sleep(wait);
        }
      }
    },
  };
}

/** The ms still to wait when `error` is Slack's 429; undefined for any other failure. */
function rateLimitWait(error: unknown): number | undefined {
  const e = error as { code?: string; retryAfter?: number; original?: { message?: string } };
  if (e.code === ErrorCode.RateLimitedError) return (e.retryAfter ?? 1) * 1000;
  // With rejectRateLimitedCalls off, web-api waits Retry-After itself and reports "A rate limit was exceeded".
  if (e.code === ErrorCode.RequestError && /rate limit was exceeded/i.test(e.original?.message ?? '')) return 0;
  return undefined;
}
