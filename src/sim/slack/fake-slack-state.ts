import type { DeliveryRequest, DeliveryResult } from './deliver-to-bot.js';
import type { FaultInjector } from './fault-injection.js';
import type { InteractionTokens } from './interaction-tokens.js';
import type { RateLimiter } from './web-api/rate-limits.js';
import type { SlackConversation } from './slack-conversation.js';
import type { SocketModeHub } from './socket-mode.js';
import type { WebApiContext } from './web-api/web-api-context.js';

/** One request that reached the fake: a Web API method, a response_url POST ('response_url') or an upload ('files.upload'). */
export interface RecordedCall {
  method: string;
  /** Parsed arguments, JSON-string fields decoded; the token is never recorded. */
  body: Record<string, unknown>;
  /** Clock time (ms). */
  at: number;
  /** HTTP status the fake answered with (429/5xx for injected faults). */
  status: number;
  /** Whether the call succeeded (HTTP 200 and `ok: true`). */
  ok: boolean;
  /** Slack error name (`ratelimited`, `message_not_found`…) when it did not. */
  error?: string;
  /** What real Slack would have done silently that a bot should not rely on (e.g. a `text` over 4,000 characters). */
  warnings?: string[];
}

/** One request the fake sent to the bot, with the bot's answer. */
export interface Delivery {
  kind: 'slash_command' | 'block_actions' | 'view_submission' | 'raw';
  /** Raw request body sent. */
  request: string;
  status: number;
  /** The bot's answer body (its ack). */
  response: string;
  ackMs: number;
  at: number;
}

/** Everything the fake's HTTP side and its bot driver share. */
export interface FakeSlackState {
  signingSecret: string;
  botEventsUrl?: string;
  ackTimeoutMs: number;
  /** How a request reaches the bot's events URL (FakeSlackOptions.deliver). */
  deliverToBot: (request: DeliveryRequest) => Promise<DeliveryResult>;
  clock: () => number;
  conversation: SlackConversation;
  tokens: InteractionTokens;
  faults: FaultInjector;
  rateLimits: RateLimiter;
  /** Every warning so far (also in the call that caused it), each written to `log`. */
  warnings: string[];
  ctx: WebApiContext;
  calls: RecordedCall[];
  deliveries: Delivery[];
  /** apps.connections.open and its WebSockets (socket-mode.ts). */
  socketMode: SocketModeHub;
  /** Deliveries go over the bot's Socket Mode connection instead of HTTP POSTs to botEventsUrl. */
  socketModeEnabled: boolean;
}

export function recordCall(state: FakeSlackState, call: Omit<RecordedCall, 'at'>): void {
  const { token: _token, ...body } = call.body;
  state.calls.push({ ...call, body, at: state.clock(), ...(call.warnings?.length ? { warnings: call.warnings } : {}) });
  state.conversation.changed();
}
