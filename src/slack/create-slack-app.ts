import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { App, HTTPReceiver, LogLevel, SocketModeReceiver, type CustomRoute, type Logger as BoltLogger } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { COMMAND_HANDLERS } from '../../commands/command-handlers.js';
import { COMMAND } from '../../commands/command-usage.js';
import { parseCommand } from '../../commands/parse-command.js';
import { routeCommand, type CommandHandlers } from '../../commands/route-command.js';
import type { BotDeps } from '../bot-deps.js';
import type { EnvConfig } from '../config/env-config.js';
import type { Logger } from '../log/logger.js';
import { registerActions } from './actions/register-actions.js';
import { observeAck, stampReceivedAt } from './metrics-ack.js';
import { createPrometheusMetrics } from '../prometheus/prom-client-metrics.js';
import type { Metrics, MetricsExposition } from '../ports/metrics.js';
import type { CommandOutcome, SlackMetrics } from './metrics.js';

export interface SlackAppOptions {
  env: EnvConfig;
  deps: BotDeps;
  logger: Logger;
  /** Interface to listen on in HTTP mode; all interfaces when omitted (tests pass 127.0.0.1). */
  host?: string;
  /** Subcommand handlers; the real ones unless a test swaps one. */
  handlers?: CommandHandlers;
  /** The process's metrics, served at GET /metrics (default: a registry of its own). */
  metrics?: Metrics & MetricsExposition;
}

export interface SlackApp {
  app: App;
  client: WebClient;
  /** The bound HTTP port once started (env.PORT, or the ephemeral one when PORT is 0). */
  port?: number;
  metrics: SlackMetrics;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The Slack surface: Bolt in HTTP mode (HTTPReceiver: POST /slack/events with Slack's signature and 5-minute
 * timestamp check, GET /healthz, GET /metrics) or Socket Mode when SLACK_APP_TOKEN is set (the same two GET routes
 * on PORT). `/eks-upgrade` is parsed synchronously, acked, then routed; buttons and modals are registered in
 * actions/. The Web API client honours SLACK_API_URL, which is how tests and the demo talk to the fake Slack.
 */
export async function createSlackApp(opts: SlackAppOptions): Promise<SlackApp> {
  const { env, deps, logger } = opts;
  const metrics = opts.metrics ?? createPrometheusMetrics();
  const boltLogger = toBoltLogger(logger);
  const customRoutes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: (_req, res) => reply(res, 200, 'application/json', '{"ok":true}') },
    { path: '/metrics', method: ['GET'], handler: (_req, res) => void serveMetrics(metrics, res, logger) },
  ];
  const socketMode = env.SLACK_APP_TOKEN !== undefined;
  const receiver = socketMode
    ? new SocketModeReceiver({
        appToken: env.SLACK_APP_TOKEN!,
        logger: boltLogger,
        customRoutes,
        installerOptions: { port: env.PORT },
        customPropertiesExtractor: stampReceivedAt,
      })
    : new HTTPReceiver({
        signingSecret: env.SLACK_SIGNING_SECRET,
        endpoints: '/slack/events',
        port: env.PORT,
        customRoutes,
        logger: boltLogger,
        customPropertiesExtractor: stampReceivedAt,
        // Wrong paths get a plain 404 instead of Bolt's thrown "Unhandled HTTP request".
        dispatchErrorHandler: async ({ response }) => reply(response, 404, 'text/plain', 'not found\n'),
      });
  const app = new App({
    token: env.SLACK_BOT_TOKEN,
    receiver,
    logger: boltLogger,
    // A few quick retries, not web-api's default of ten over ~30 minutes: an unreachable Slack must stop start-up
    // with a sentence, and an ephemeral answer that needs minutes to get through is no longer worth sending.
    clientOptions: {
      ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
      retryConfig: { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 4_000 },
    },
    // auth.test runs in init() below, where a bad token or an unreachable Slack fails start-up with a sentence.
    deferInitialization: true,
  });

  const handlers = opts.handlers ?? COMMAND_HANDLERS;
  app.command(COMMAND, async ({ command, ack, respond, context }) => {
    // Parsing is synchronous and cheap; nothing else may come before the ack (Slack gives up after 3 s).
    const parsed = parseCommand(command.text ?? '');
    await ack();
    observeAck(metrics, context);
    const subcommand = parsed.ok ? parsed.command.subcommand : (parsed.subcommand ?? 'unknown');
    let outcome: CommandOutcome = 'error';
    try {
      outcome = await routeCommand({ parsed, userId: command.user_id, channelId: command.channel_id, respond: (message) => respond(message).then(() => undefined) }, deps, handlers);
    } catch (error) {
      // Only the response_url itself failing gets here; the router turns everything else into a reply.
      logger.error({ err: error, subcommand, user: command.user_id }, 'could not answer a slash command');
    } finally {
      metrics.countCommand(subcommand, outcome);
    }
  });
  registerActions(app, { deps, metrics, logger });
  app.error(async (error) => {
    logger.error({ err: error }, 'Slack request handling failed');
  });

  try {
    await app.init();
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
    throw new Error(`Slack auth.test failed (${code}): check SLACK_BOT_TOKEN${env.SLACK_API_URL ? ` and SLACK_API_URL (${env.SLACK_API_URL})` : ''}`, { cause: error });
  }

  const slack: SlackApp = {
    app,
    client: app.client,
    metrics,
    async start() {
      if (socketMode) {
        await app.start();
        slack.port = env.PORT;
      } else {
        const server = (await app.start({ port: env.PORT, ...(opts.host ? { host: opts.host } : {}) })) as Server;
        slack.port = (server.address() as AddressInfo).port;
      }
      logger.info({ mode: socketMode ? 'socket' : 'http', port: slack.port }, 'Slack app listening');
    },
    async stop() {
      await app.stop();
    },
  };
  return slack;
}

export async function serveMetrics(metrics: MetricsExposition, res: ServerResponse, logger: Logger): Promise<void> {
  try {
    const { contentType, body } = await metrics.render();
    reply(res, 200, contentType, body);
  } catch (error) {
    logger.warn({ err: error }, 'rendering /metrics failed');
    reply(res, 500, 'text/plain', 'rendering the metrics failed; see the bot log\n');
  }
}

function reply(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Bolt (and the WebClient it builds) log through this: lines go to our pino logger, whose hooks mask anything
 * shaped like a token. Bolt may not change our level: setLevel is ignored.
 */
function toBoltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ part: 'bolt' });
  const line = (parts: unknown[]) => parts.map((part) => (typeof part === 'string' ? part : inspect(part, { depth: 3, breakLength: Infinity }))).join(' ');
  return {
    debug: (...parts) => child.debug(line(parts)),
    info: (...parts) => child.info(line(parts)),
    warn: (...parts) => child.warn(line(parts)),
    error: (...parts) => child.error(line(parts)),
    setLevel: () => {},
    getLevel: () => {
      const level = child.level;
      if (level === 'debug' || level === 'trace') return LogLevel.DEBUG;
      if (level === 'info') return LogLevel.INFO;
      if (level === 'warn') return LogLevel.WARN;
      return LogLevel.ERROR;
    },
    setName: () => {},
  };
}
