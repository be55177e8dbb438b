/**
 * What the outbox does after a failed Slack call. Decided from the error alone (pure), so the retry policy is
 * testable without a network:
 * - retry: Slack or the network is having a moment; try the same entry again after `afterMs` (the channel waits,
 *   which keeps the thread in order).
 * - plain-text: Slack refused the blocks (a renderer bug or a limit we missed); resend as text rather than lose it.
 * - message-gone: the message to update no longer exists or cannot be edited; post a new reply instead.
 * - drop: Slack will never accept this entry; park it in the dead-letter list and move on.
 */

import { ErrorCode } from '@slack/web-api';
import { backoffMs, type BackoffPolicy } from '../../domain/backoff.js';

export type SlackErrorVerdict =
  /**
   * `backoff`: this failure counts towards the exponential backoff (5xx, network, Slack-side and unknown errors).
   * A 429 does not: it waits exactly Retry-After, and a long run of them must not stretch the wait after a later 500.
   */
  | { action: 'retry'; afterMs: number; reason: string; backoff: boolean; configuration?: boolean }
  | { action: 'plain-text'; reason: string }
  | { action: 'message-gone'; reason: string }
  | { action: 'drop'; reason: string };

export type RetryPolicy = BackoffPolicy;

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 1000, maxMs: 60_000 };

/** Slack's own transient failures, answered with HTTP 200 and ok:false. */
const TRANSIENT_PLATFORM = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

/**
 * Errors an operator fixes without a code change (re-invite the bot, rotate a token and restart). Dropping would lose
 * the timeline, so retry slowly — the channel waits, the upgrade does not.
 */
const CONFIGURATION_PLATFORM = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'missing_scope',
  'no_permission',
]);

const RENDERING_PLATFORM = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'too_many_blocks',
  'invalid_arguments',
]);

const MESSAGE_GONE_PLATFORM = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

/**
 * Slack-side failures answered with ok:false after which the call may still have taken effect (Slack documents
 * fatal_error as "some aspect of the operation may have succeeded").
 */
const MAYBE_APPLIED_PLATFORM = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

const UNKNOWN_ERROR_ATTEMPTS = 8;

/**
 * `failures`: earlier failures of this delivery that counted towards the backoff (see `backoff` above), not every
 * earlier attempt — 429s are left out of it.
 */
export function slackErrorVerdict(error: unknown, failures: number, policy: RetryPolicy): SlackErrorVerdict {
  const e = error as { code?: string; retryAfter?: number; statusCode?: number; data?: { error?: string } };
  const backoff = (reason: string) => ({ action: 'retry' as const, afterMs: backoffMs(failures, policy), reason, backoff: true });
  switch (e?.code) {
    case ErrorCode.RateLimitedError: {
      // Retry-After is in seconds; honour it exactly rather than our own (possibly shorter) backoff.
      const afterMs = Math.max(0, (e.retryAfter ?? 1) * 1000);
      return { action: 'retry', afterMs, reason: `rate limited (Retry-After ${e.retryAfter ?? 1}s)`, backoff: false };
    }
    case ErrorCode.RequestError:
      return backoff('network error');
    case ErrorCode.HTTPError: {
      const status = e.statusCode ?? 0;
      if (status >= 500 || status === 408) return backoff(`HTTP ${status}`);
      return { action: 'drop', reason: `HTTP ${status}` };
    }
    case ErrorCode.PlatformError: {
      const code = e.data?.error ?? 'unknown_error';
      if (TRANSIENT_PLATFORM.has(code)) return backoff(code);
      if (CONFIGURATION_PLATFORM.has(code)) {
        const slow = { baseMs: policy.baseMs * 5, maxMs: policy.maxMs * 5 };
        return { action: 'retry', afterMs: backoffMs(failures, slow), reason: code, backoff: true, configuration: true };
      }
      if (RENDERING_PLATFORM.has(code)) return { action: 'plain-text', reason: code };
      if (MESSAGE_GONE_PLATFORM.has(code)) return { action: 'message-gone', reason: code };
      return { action: 'drop', reason: code };
    }
    default: {
      // Timeouts surface as RequestError. Anything else (e.g. the upload step of filesUploadV2 failing) is worth a
      // few more tries, but is not known to be transient, so it must not hold the channel forever.
      const reason = error instanceof Error ? error.message : String(error);
      if (failures >= UNKNOWN_ERROR_ATTEMPTS) return { action: 'drop', reason };
      return backoff(reason);
    }
  }
}

/**
 * Whether a failed call may nevertheless have taken effect in Slack — the answer was lost, not refused: a 5xx or
 * 408, a network error (the request may have been sent before the connection dropped, or timed out while Slack
 * worked), a Slack-side error that admits partial success, or an error of our own raised after the call (e.g. Redis
 * failing while recording it). A 429 and every other ok:false answer mean Slack did nothing. For a post, "maybe"
 * means: look for it before posting again.
 */
export function mayHaveTakenEffect(error: unknown): boolean {
  const e = error as { code?: string; statusCode?: number; data?: { error?: string } };
  switch (e?.code) {
    case ErrorCode.RateLimitedError:
      return false;
    case ErrorCode.HTTPError:
      return (e.statusCode ?? 0) >= 500 || e.statusCode === 408;
    case ErrorCode.PlatformError:
      return MAYBE_APPLIED_PLATFORM.has(e.data?.error ?? '');
    default:
      return true;
  }
}
