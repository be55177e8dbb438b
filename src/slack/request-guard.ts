import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPModuleFunctions } from '@slack/bolt';
import type { Logger } from '../log/logger.js';
import { classifySlackBody } from './classify-slack-body.js';

/**
 * Slack's signature, verified once here for every request Bolt would handle as an event (Bolt's receiver does not
 * verify it again: the HMAC and its comparison were a tenth of the web process's CPU per command in bench P1), and
 * what Bolt's HTTPReceiver does not refuse by itself, checked after the body is read and its signature verified (so
 * only genuine signatures are remembered):
 * - a replay: Slack's v0 signature is valid for 5 minutes, so a captured request could be sent again in that time
 *   and would act again (a second Continue, a second start). A signature seen before is refused with 401. The memory
 *   is per process; behind several web replicas a replay that reaches another replica is still bounded by the
 *   5 minutes of the timestamp check.
 * - a content type Slack never sends (slash commands and interactivity are form-encoded, events are JSON): 415,
 *   instead of Bolt's attempt to parse it as JSON.
 * - a signed body of a shape Bolt would crash on or never ack (classify-slack-body.ts): 400, or an empty 200 for
 *   interaction types Slack sends that the bot has no handler for.
 * Bolt then reuses the buffered body (it skips re-reading a request that carries rawBody).
 */
export const SLACK_BODY_LIMIT_BYTES = 256 * 1024;
export const SLACK_EVENTS_PATH = '/slack/events';
const SIGNATURE_TTL_MS = 5 * 60_000;
const MAX_REMEMBERED = 50_000;

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export function guardSlackRequests(
  next: RequestListener,
  { signingSecret, command, logger, now = Date.now }: { signingSecret: string; command: string; logger: Logger; now?: () => number },
): RequestListener {
  const seen = new Map<string, number>();
  const isReplay = (signature: string): boolean => {
    const at = now();
    const expires = seen.get(signature);
    if (expires !== undefined && expires > at) return true;
    // Map keeps insertion order, so the oldest entries come first: drop expired ones (and, past the cap, the oldest).
    for (const [key, until] of seen) {
      if (until > at && seen.size < MAX_REMEMBERED) break;
      seen.delete(key);
    }
    seen.set(signature, at + SIGNATURE_TTL_MS);
    return false;
  };
  return (req, res) => {
    if (!isSlackEventsRequest(req)) return next(req, res);
    HTTPModuleFunctions.parseAndVerifyHTTPRequest({ signingSecret, bodyLimit: SLACK_BODY_LIMIT_BYTES, enabled: true }, req).then(
      () => {
        const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded' && type !== 'application/json') {
          logger.warn({ audit: 'request-refused', reason: 'content-type', contentType: type.slice(0, 100) }, 'refused a Slack request with a content type Slack does not send');
          return refuse(res, 415, 'Slack requests are form-encoded or JSON.\n');
        }
        const signature = String(req.headers['x-slack-signature']);
        if (isReplay(signature)) {
          logger.warn({ audit: 'request-refused', reason: 'replay' }, 'refused a Slack request whose signature was already used');
          return refuse(res, 401, 'This request was already received.\n');
        }
        const verdict = classifySlackBody(type, (req as IncomingMessage & { rawBody: Buffer }).rawBody.toString(), command);
        if (verdict.kind === 'reject') {
          logger.warn({ audit: 'request-refused', reason: 'shape', what: verdict.why }, 'refused a signed request that is not one Slack sends this bot');
          return refuse(res, 400, `The bot does not answer ${verdict.why}.\n`);
        }
        if (verdict.kind === 'ack-empty') {
          logger.info({ what: verdict.why }, 'acknowledged an interaction the bot has no handler for');
          res.writeHead(200, { 'content-length': 0 });
          return res.end();
        }
        next(req, res);
      },
      (error: unknown) => {
        const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && ((error as { type?: string }).type === 'entity.too.large' || (error as { statusCode?: number }).statusCode === 413);
        logger.warn({ audit: 'request-refused', reason: tooLarge ? 'too-large' : 'signature' }, tooLarge ? 'refused a Slack request over the size limit' : 'refused a Slack request whose signature does not verify');
        refuse(res, tooLarge ? 413 : 401, tooLarge ? `Request bodies are limited to ${SLACK_BODY_LIMIT_BYTES} bytes.\n` : 'The request signature does not verify.\n');
      },
    );
  };
}

/**
 * Whether Bolt's HTTPReceiver would take this request as a Slack event: its own test, a POST whose path, as `new
 * URL(req.url, 'http://localhost')` reads it, is the events endpoint (so `/slack/./events`, `/x/../slack/events` and
 * `/slack/events#…` are events too). Bolt verifies no signature itself (createSlackApp turns its check off, this guard
 * having made it): any request Bolt would handle as an event must come through here.
 */
function isSlackEventsRequest(req: IncomingMessage): boolean {
  if (req.method?.toUpperCase() !== 'POST') return false;
  if (req.url === SLACK_EVENTS_PATH) return true; // what Slack sends: no URL to parse
  try {
    return new URL(req.url ?? '', 'http://localhost').pathname === SLACK_EVENTS_PATH;
  } catch {
    return false; // Bolt's own URL parse throws too: not an event it would handle
  }
}

function refuse(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}
