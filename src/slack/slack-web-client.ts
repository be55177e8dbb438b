/**
 * The bot's own Slack Web API client, built once by the entry point (src/start-bot.ts) and shared by the thread
 * outbox, channel posts, user-group lookups and doctor. Bolt builds the clients of the Slack surface itself (its
 * `App` takes no client), so this one is for everything else.
 *
 * Retries are off and rate-limited calls are rejected: web-api's default retries for ~30 minutes and, on a 429,
 * pauses its whole request queue, which would hold one outbox entry (and its channel's order) hostage, freeze the
 * bot's other Slack calls and silently repeat posts after network errors. The outbox honours Retry-After itself;
 * its retry policy lives in one place (thread/slack-error-verdict.ts). A timeout bounds each request.
 */

import { WebClient } from '@slack/web-api';
import type { Logger } from '../log/logger.js';
import { slackLoggerFrom } from './slack-logger.js';

export interface SlackWebClientOptions {
  /** SLACK_API_URL (tests and the demo: the fake Slack); default Slack's own. */
  apiUrl?: string;
  logger: Logger;
  /** Per request, default 15 s. */
  timeoutMs?: number;
}

export function createSlackWebClient(token: string, opts: SlackWebClientOptions): WebClient {
  return new WebClient(token, {
    ...(opts.apiUrl ? { slackApiUrl: opts.apiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: opts.timeoutMs ?? 15_000,
    logger: slackLoggerFrom(opts.logger, { component: 'slack-web-api' }),
  });
}
