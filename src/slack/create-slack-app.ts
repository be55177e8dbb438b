import type { Server, ServerResponse } from 'node:http';
import { createLimiter } from '../cluster-reader/bounded.js';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, SocketModeReceiver, type CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { BotDeps } from '../ports/bot-deps.js';
import type { EnvConfig } from '../config/env-config.js';
import type { Logger } from '../log/logger.js';
import type { CommandHandOff, CommandOutcome, SlashCommandRouter } from '../ports/slack/slash-command.js';
import { registerActions } from './actions/register-actions.js';
import { observeAck, stampReceivedAt } from './metrics-ack.js';
import type { Metrics, MetricsExposition } from '../ports/metrics.js';
import type { SlackMetrics } from './metrics.js';
import { slackLoggerFrom } from './slack-logger.js';
import { ackEveryEnvelope } from './ack-every-envelope.js';
import { createAfterAcks } from './after-acks.js';
import { guardSlackRequests, SLACK_BODY_LIMIT_BYTES } from './request-guard.js';

export interface SlackAppOptions {
  env: EnvConfig;
  deps: BotDeps;
  logger: Logger;
  /** Interface to listen on in HTTP mode; all interfaces when omitted (tests pass 127.0.0.1). */
  host?: string;
  /** The slash command and its subcommands (commands/routing/slash-command-router.ts), handed in by the entry point. */
  commands: SlashCommandRouter;
  /** The process's metrics (src/prometheus/prom-client-metrics.ts, built by the entry point), served at GET /metrics. */
  metrics: Metrics & MetricsExposition;
  /**
   * ROLE=web: read-only commands (status, plan, digest) go to the worker processes (jobs/slash-commands/slash-command-queue.ts),
   * which answer through the response_url; without it (ROLE=all, tests) every command runs in this process.
   */
  handOff?: CommandHandOff;
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
/**
 * Slash commands whose work (after the ack) runs at once in this process: enough that commands waiting on a slow
 * AWS still overlap (30 commands of 2 s each answer within 4 s), few enough that a burst of 200 does not starve the
 * acks. Behind ROLE=web only the commands that change something run here; status, plan and digest go to the workers.
 */
const COMMANDS_AT_ONCE = 16;

export async function createSlackApp(opts: SlackAppOptions): Promise<SlackApp> {
  const { env, deps, logger } = opts;
  const metrics = opts.metrics;
  const boltLogger = slackLoggerFrom(logger, { part: 'bolt' });
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
        // installerOptions.clientOptions is what Bolt hands its SocketModeClient's WebClient, which calls
        // apps.connections.open: without it a non-default SLACK_API_URL is ignored for the connection.
        installerOptions: { port: env.PORT, ...(env.SLACK_API_URL ? { clientOptions: { slackApiUrl: env.SLACK_API_URL } } : {}) },
        customPropertiesExtractor: stampReceivedAt,
      })
    : new HTTPReceiver({
        // parseEnv requires the signing secret whenever SLACK_APP_TOKEN is unset (HTTP mode).
        signingSecret: env.SLACK_SIGNING_SECRET!,
        endpoints: '/slack/events',
        port: env.PORT,
        customRoutes,
        logger: boltLogger,
        customPropertiesExtractor: stampReceivedAt,
        bodyLimit: SLACK_BODY_LIMIT_BYTES,
        // guardSlackRequests (below) verifies the signature of every request this receiver handles as an event, with
        // Bolt's own parseAndVerifyHTTPRequest, before the receiver sees it; verifying it twice cost a second HMAC.
        signatureVerification: false,
        // Wrong paths get a plain 404 instead of Bolt's thrown "Unhandled HTTP request".
        dispatchErrorHandler: async ({ response }) => reply(response, 404, 'text/plain', 'not found\n'),
      });
  if (receiver instanceof HTTPReceiver) receiver.requestListener = guardSlackRequests(receiver.requestListener, { signingSecret: env.SLACK_SIGNING_SECRET!, command: opts.commands.command, logger });
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
    // Bolt's conversation store (context.conversation) is not used here: without it, no request pays for its lookup,
    // which rejects with a new Error for every request of a conversation it never saw (bench P1).
    convoStore: false,
  });
  if (socketMode) ackEveryEnvelope(app);

  // The work after the ack (status reads, plans, rendering) runs a few commands at a time: a burst of commands must
  // not fill the event loop so that the next command's ack misses Slack's 3 s (bench P1). The rest wait their turn.
  const runCommand = createLimiter(COMMANDS_AT_ONCE);
  const afterAcks = createAfterAcks();
  app.command(opts.commands.command, async ({ command, ack, respond, context }) => {
    // Parsing is synchronous and cheap; nothing else may come before the ack (Slack gives up after 3 s).
    const prepared = opts.commands.prepare({
      text: command.text ?? '',
      userId: command.user_id,
      channelId: command.channel_id,
      respond: (message) => respond(message).then(() => undefined),
    });
    // An answer parsing alone decides (usage, help) goes in the ack's body: no response_url call after it.
    await ack(prepared.reply);
    observeAck(metrics, context);
    await afterAcks.turn();
    if (opts.handOff && prepared.readOnly && command.response_url) {
      const queued = await opts.handOff
        .enqueue({ text: command.text ?? '', userId: command.user_id, channelId: command.channel_id, responseUrl: command.response_url })
        .then(() => true, (error: unknown) => {
          // Redis unreachable: answer from here rather than not at all.
          logger.warn({ err: error, subcommand: prepared.subcommand }, 'could not hand a command to the workers; running it here');
          return false;
        });
      if (queued) return;
    }
    let outcome: CommandOutcome = 'error';
    try {
      outcome = await runCommand(() => prepared.run({ repliedInAck: prepared.reply !== undefined }));
    } catch (error) {
      // Only the response_url itself failing gets here; the router turns everything else into a reply.
      logger.error({ err: error, subcommand: prepared.subcommand, user: command.user_id }, 'could not answer a slash command');
    } finally {
      metrics.countCommand(prepared.subcommand, outcome);
    }
  });
  registerActions(app, { deps, metrics, logger, commands: opts.commands });
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
