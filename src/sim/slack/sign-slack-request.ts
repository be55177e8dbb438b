import { createHmac } from 'node:crypto';

/**
 * Slack's v0 request signing (https://api.slack.com/authentication/verifying-requests-from-slack): the base string
 * `v0:{timestamp}:{raw body}` is HMAC-SHA256'd with the app's signing secret and sent hex-encoded as
 * `X-Slack-Signature: v0=<hex>` next to `X-Slack-Request-Timestamp` (epoch seconds). The receiving app recomputes it
 * and rejects requests whose timestamp is more than five minutes away from its own clock.
 */
export function computeSlackSignature(signingSecret: string, timestampSec: number | string, rawBody: string): string {
  const hex = createHmac('sha256', signingSecret).update(`v0:${timestampSec}:${rawBody}`).digest('hex');
  return `v0=${hex}`;
}

export interface SlackSignatureHeaders {
  'x-slack-request-timestamp': string;
  'x-slack-signature': string;
}

/**
 * The two headers Slack adds to every request it sends to an app. The timestamp defaults to the real wall clock
 * (not a simulated one) because Bolt checks staleness against its own `Date.now()`.
 */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestampSec: number = Math.floor(Date.now() / 1000),
): SlackSignatureHeaders {
  return {
    'x-slack-request-timestamp': String(timestampSec),
    'x-slack-signature': computeSlackSignature(signingSecret, timestampSec, rawBody),
  };
}
