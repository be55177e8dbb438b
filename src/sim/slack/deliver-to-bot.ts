/** How long Slack waits for an app's HTTP answer before showing the user `operation_timeout`. */

import { performance } from 'node:perf_hooks';
import { signSlackRequest } from './sign-slack-request.js';

export const SLACK_ACK_TIMEOUT_MS = 3_000;

export interface DeliveryResult {
  /** HTTP status of the bot's answer; 0 when it did not answer in time or could not be reached. */
  status: number;
  /** The bot's answer body, or Slack's error name (`operation_timeout`, `dispatch_failed`) when status is 0. */
  body: string;
  /** Real milliseconds from sending the request to having the whole answer. */
  ackMs: number;
}

export interface DeliveryRequest {
  url: string;
  body: string;
  /** Signs with this secret unless `headers` already carry a signature (forged/stale signature tests). */
  signingSecret?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * POSTs a request to the bot the way Slack does: form-encoded, signed (v0), with Slack's 3-second patience.
 * Network failures are answers here, not exceptions: Slack shows the user an error and moves on.
 */
export async function deliverToBot(request: DeliveryRequest): Promise<DeliveryResult> {
  const headers = slackDeliveryHeaders(request);
  const started = performance.now();
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs ?? SLACK_ACK_TIMEOUT_MS),
    });
    const body = await response.text();
    return { status: response.status, body, ackMs: performance.now() - started };
  } catch (error) {
    const ackMs = performance.now() - started;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { status: 0, body: timedOut ? 'operation_timeout' : 'dispatch_failed', ackMs };
  }
}

/** The headers Slack sends with a delivery: form-encoded, its user agent, signed (v0) unless the request carries a signature. */
export function slackDeliveryHeaders(request: DeliveryRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    ...lowercaseKeys(request.headers ?? {}),
  };
  if (request.signingSecret && headers['x-slack-signature'] === undefined) {
    Object.assign(headers, signSlackRequest(request.signingSecret, request.body));
  }
  return headers;
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}
