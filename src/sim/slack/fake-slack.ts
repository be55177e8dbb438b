import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createBotDriver,
  type BotInteractionResult,
  type ClickButtonInput,
  type SlashCommandInput,
  type SubmitViewInput,
  type ViewSubmissionResult,
} from './bot-driver.js';
import type { ConversationEntry, FakeEphemeral, FakeFile, FakeMessage, FakeModal } from './conversation-types.js';
import { deliverToBot, SLACK_ACK_TIMEOUT_MS, type DeliveryRequest, type DeliveryResult } from './deliver-to-bot.js';
import { createFakeSlackRequestHandler } from './fake-slack-http.js';
import type { Delivery, FakeSlackState, RecordedCall } from './fake-slack-state.js';
import { createFaultInjector, type FaultSpec, type OutageSpec } from './fault-injection.js';
import { createInteractionTokens } from './interaction-tokens.js';
import { createRateLimiter, type RateLimitMode } from './web-api/rate-limits.js';
import { renderConversation, type RenderConversationOptions } from './render-conversation.js';
import type { SlackSignatureHeaders } from './sign-slack-request.js';
import { createSlackConversation } from './slack-conversation.js';
import { createSocketModeHub, type SocketModeHub } from './socket-mode.js';
import type { Workspace } from './web-api/web-api-context.js';
import { ALL_BOT_SCOPES } from './web-api/token-scopes.js';

export type { BotInteractionResult, ClickButtonInput, SlashCommandInput, SubmitViewInput, ViewSubmissionResult } from './bot-driver.js';
export type { FeedEvent, FeedFile, FeedWorkspace } from './conversation-feed.js';
export type { ConversationEntry, FakeEphemeral, FakeFile, FakeMessage, FakeModal } from './conversation-types.js';
export { deliverToBot, slackDeliveryHeaders, SLACK_ACK_TIMEOUT_MS } from './deliver-to-bot.js';
export type { DeliveryRequest, DeliveryResult } from './deliver-to-bot.js';
export type { Delivery, RecordedCall } from './fake-slack-state.js';
export type { FaultSpec, OutageSpec } from './fault-injection.js';
export type { RateLimitMode } from './web-api/rate-limits.js';
export type { RenderConversationOptions } from './render-conversation.js';
export type { Workspace } from './web-api/web-api-context.js';

export interface FakeSlackOptions {
  signingSecret: string;
  /** Where the bot receives commands and interactions, e.g. http://127.0.0.1:3000/slack/events. */
  botEventsUrl?: string;
  port?: number;
  host?: string;
  /**
   * Slack's clock (ms): message ts, `at` of records, and the trigger_id (3 s) / response_url (30 min) limits.
   * Request signatures always use the real clock, because Bolt checks them against its own Date.now().
   */
  clock?: () => number;
  teamId?: string;
  botUserId?: string;
  teamDomain?: string;
  appId?: string;
  botName?: string;
  /** usergroups.users.list: user-group id → member ids. */
  userGroups?: Record<string, string[]>;
  /** users.info / user_name in payloads: user id → name. */
  userNames?: Record<string, string>;
  /** conversations.info / channel_name in payloads: channel id → name. */
  channelNames?: Record<string, string>;
  /** The bot token's granted scopes (x-oauth-scopes; `missing_scope` for others). Default: every scope it knows. */
  botScopes?: string[];
  /** Conversations the bot is a member of (`not_in_channel` elsewhere; conversations.info is_member). Default: all. */
  botChannels?: string[];
  /** How long the fake waits for the bot's ack before recording `operation_timeout` (Slack: 3000 ms). */
  ackTimeoutMs?: number;
  /**
   * Slack's rate limits (rate-limits.ts): chat.postMessage about 1 per second per channel after a burst, chat.update
   * and reactions.add Tier 3 (50 a minute), answered with HTTP 429 and `Retry-After` as Slack does. On by default,
   * so the bot is shown to pace itself and retry. `'off'` is for tests that drive whole upgrade threads on a
   * simulated clock in milliseconds, where Slack's real-time pace would only add seconds of waiting and prove nothing
   * new; at least one test keeps the limits on (test/integration/fake-slack-rate-limits.test.ts).
   */
  rateLimits?: RateLimitMode;
  /**
   * The speed of the simulated clock the bot's upgrades run on, for the rate limits only (rate-limits.ts): at 60 the
   * buckets refill 60 times faster, so a bot running an hour's upgrade in a minute may make an hour's worth of the
   * calls Slack allows. Default 1: Slack's real-time limits.
   */
  rateLimitSpeed?: number;
  /** Where the fake writes its warnings (e.g. a top-level `text` over 4,000 characters); console.warn by default. */
  log?: (message: string) => void;
  /**
   * Socket Mode (socket-mode.ts): commands and interactions go to the bot as envelopes on the WebSocket it opened
   * with apps.connections.open, not as signed POSTs to botEventsUrl.
   */
  socketMode?: boolean;
  /**
   * Sends one signed request to the bot's events URL and times its answer (default: deliverToBot, from this
   * process). A benchmark passes one that sends from a process of its own: Slack's own servers time an ack without
   * also answering the bot's chat.postMessage and response_url calls, which this process does.
   */
  deliver?: (request: DeliveryRequest) => Promise<DeliveryResult>;
}

/** The fake's Socket Mode side, for tests: connection counts, a raw envelope, a refresh. */
export interface FakeSocketMode {
  readonly openConnections: number;
  readonly connectionsOpened: number;
  send: SocketModeHub['send'];
  disconnect: SocketModeHub['disconnect'];
}

export interface FakeSlack {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** `${url}/api/`: pass as Bolt `clientOptions.slackApiUrl` / WebClient `slackApiUrl`. */
  readonly apiUrl: string;
  readonly workspace: Readonly<Workspace>;
  /** Every request that reached the fake, in order (Web API methods, 'response_url', 'files.upload'). */
  readonly calls: readonly RecordedCall[];
  /** Every request the fake sent to the bot, with its ack. */
  readonly deliveries: readonly Delivery[];
  /** What real Slack would accept but handle badly (a top-level `text` over 4,000 characters), in order. */
  readonly warnings: readonly string[];
  /** Everything that happened, in order (commands, messages, ephemerals, clicks, modals). */
  readonly entries: readonly ConversationEntry[];
  setBotEventsUrl(url: string): void;
  readonly socketMode: FakeSocketMode;
  setUserGroup(id: string, users: string[]): void;
  /** The next `count` calls of `method` ('*' = any, 'response_url', 'files.upload') fail with `fault`. */
  failNext(method: string, fault: FaultSpec, count?: number): void;
  setOutage(spec: OutageSpec): void;
  clearOutage(): void;
  /** Top-level messages (of one channel), each with its replies and files, edits applied. */
  messages(channel?: string): FakeMessage[];
  /** A message or thread reply by channel and ts. */
  message(channel: string, ts: string): FakeMessage | undefined;
  ephemerals(user?: string): FakeEphemeral[];
  files(): FakeFile[];
  modals(): FakeModal[];
  /** Successful calls of one method (faulted and `ok: false` calls left out). */
  okCalls(method: string): RecordedCall[];
  renderConversation(options?: RenderConversationOptions): string;
  sendSlashCommand(input: SlashCommandInput): Promise<BotInteractionResult>;
  clickButton(input: ClickButtonInput): Promise<BotInteractionResult>;
  submitView(input: SubmitViewInput): Promise<ViewSubmissionResult>;
  signRequest(body: string, timestampSec?: number): SlackSignatureHeaders;
  /** Sends exactly this body and these headers to the bot (nothing added): forged and stale signatures. */
  sendRaw(input: { body: string; headers: Record<string, string> }): Promise<DeliveryResult>;
  /**
   * Resolves with the predicate's first truthy result, re-checked whenever the fake records something (no
   * polling). A predicate that throws counts as "not yet". On timeout, rejects with the conversation so far.
   */
  waitFor<T>(predicate: (fake: FakeSlack) => T | undefined | null | false, options?: { timeoutMs?: number }): Promise<T>;
  close(): Promise<void>;
}

/**
 * A local Slack for end-to-end tests and the demo: the Web API the bot's WebClient talks to (recorded call by call),
 * response_urls, file uploads, fault injection (429/5xx), and a user who types commands, clicks buttons and submits
 * modals through signed requests to the bot, with the resulting conversation available as data and as text. A
 * browser can be that user too: /client/feed streams what users see, /client/<action> acts (user-client-http.ts).
 *
 *   const slack = await startFakeSlack({ signingSecret });
 *   // bot: new App({ token: 'xoxb-…', signingSecret, clientOptions: { slackApiUrl: slack.apiUrl } }) on port P
 *   slack.setBotEventsUrl(`http://127.0.0.1:${P}/slack/events`);
 *   await slack.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
 *   const gate = await slack.waitFor((s) => s.messages('C0DEMO')[0]?.replies.find((r) => r.text.includes('Gate')));
 *   await slack.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: gate.ts, text: 'Continue' });
 *   console.log(slack.renderConversation());
 */
export async function startFakeSlack(opts: FakeSlackOptions): Promise<FakeSlack> {
  const clock = opts.clock ?? Date.now;
  let baseUrl = '';
  let idSeq = 0;
  const conversation = createSlackConversation({ clock });
  const workspace: Workspace = {
    teamId: opts.teamId ?? 'T0FAKE',
    teamDomain: opts.teamDomain ?? 'fake-workspace',
    appId: opts.appId ?? 'A0FAKEAPP',
    botUserId: opts.botUserId ?? 'U0BOT',
    botId: 'B0BOT',
    botName: opts.botName ?? 'eks-upgrade',
    userGroups: new Map(Object.entries(opts.userGroups ?? {})),
    userNames: new Map(Object.entries(opts.userNames ?? {})),
    channelNames: new Map(Object.entries(opts.channelNames ?? {})),
    access: { scopes: [...(opts.botScopes ?? ALL_BOT_SCOPES)], channels: opts.botChannels ? new Set(opts.botChannels) : undefined },
  };
  const tokens = createInteractionTokens({ clock, baseUrl: () => baseUrl });
  const ackTimeoutMs = opts.ackTimeoutMs ?? SLACK_ACK_TIMEOUT_MS;
  const socketMode = createSocketModeHub({ baseUrl: () => baseUrl, appId: opts.appId ?? 'A0FAKEAPP', ackTimeoutMs, changed: () => conversation.changed() });
  const state: FakeSlackState = {
    signingSecret: opts.signingSecret,
    botEventsUrl: opts.botEventsUrl,
    ackTimeoutMs,
    deliverToBot: opts.deliver ?? deliverToBot,
    socketMode,
    socketModeEnabled: opts.socketMode ?? false,
    clock,
    conversation,
    tokens,
    faults: createFaultInjector({ clock }),
    rateLimits: createRateLimiter({ mode: opts.rateLimits ?? 'on', speed: opts.rateLimitSpeed }),
    warnings: [],
    ctx: {
      conversation,
      tokens,
      workspace,
      clock,
      nextId: () => ++idSeq,
      warn: (warning: string) => {
        state.warnings.push(warning);
        (opts.log ?? ((message: string) => console.warn(message)))(`fake Slack warning: ${warning}`);
      },
      get baseUrl() {
        return baseUrl;
      },
    },
    calls: [],
    deliveries: [],
  };

  const driver = createBotDriver(state);
  const server = createServer(createFakeSlackRequestHandler(state, driver));
  server.on('upgrade', (req, socket, head) => socketMode.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${opts.host ?? '127.0.0.1'}:${port}`;

  const fake: FakeSlack = {
    url: baseUrl,
    port,
    apiUrl: `${baseUrl}/api/`,
    workspace,
    calls: state.calls,
    deliveries: state.deliveries,
    warnings: state.warnings,
    entries: conversation.entries,
    setBotEventsUrl(url: string): void {
      state.botEventsUrl = url;
    },
    socketMode: {
      get openConnections() {
        return socketMode.openConnections;
      },
      get connectionsOpened() {
        return socketMode.connectionsOpened;
      },
      send: (type, payload) => socketMode.send(type, payload),
      disconnect: (reason, graceMs) => socketMode.disconnect(reason, graceMs),
    },
    setUserGroup(id: string, users: string[]): void {
      workspace.userGroups.set(id, [...users]);
    },
    failNext: (method: string, fault: FaultSpec, count = 1): void => state.faults.failNext(method, fault, count),
    setOutage: (spec: OutageSpec): void => state.faults.setOutage(spec),
    clearOutage: (): void => state.faults.clearOutage(),
    messages: (channel?: string): FakeMessage[] => conversation.messages(channel),
    message: (channel: string, ts: string): FakeMessage | undefined => conversation.findMessage(channel, ts),
    ephemerals: (user?: string): FakeEphemeral[] => conversation.ephemerals(user),
    files: (): FakeFile[] => conversation.files(),
    modals: (): FakeModal[] => conversation.modals(),
    okCalls: (method: string): RecordedCall[] => state.calls.filter((call) => call.method === method && call.ok),
    renderConversation: (options?: RenderConversationOptions): string =>
      renderConversation(conversation.entries, { botName: workspace.botName, ...options }),
    ...driver,
    waitFor<T>(predicate: (fake: FakeSlack) => T | undefined | null | false, options: { timeoutMs?: number } = {}): Promise<T> {
      const timeoutMs = options.timeoutMs ?? 5_000;
      return new Promise<T>((resolve, reject) => {
        let lastError: unknown;
        const check = (): boolean => {
          try {
            const result = predicate(fake);
            if (result) {
              finish();
              resolve(result);
              return true;
            }
          } catch (error) {
            lastError = error;
          }
          return false;
        };
        const timer = setTimeout(() => {
          finish();
          const why = lastError instanceof Error ? ` (last predicate error: ${lastError.message})` : '';
          reject(new Error(`fake Slack waitFor: condition not met within ${timeoutMs} ms${why}; conversation so far:\n`
            + fake.renderConversation()));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          conversation.events.off('change', check);
        };
        if (!check()) conversation.events.on('change', check);
      });
    },
    async close(): Promise<void> {
      conversation.events.removeAllListeners();
      await socketMode.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
