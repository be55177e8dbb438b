import { randomUUID } from 'node:crypto';
import type { AwsCredentialIdentity } from '@smithy/types';
import { createSlashCommandRouter } from '../commands/routing/slash-command-router.js';
import { keyPrefixFor, redisTargetOf, type RedisClient } from './store/redis-connection.js';
import { createQueueKit } from './store/queue-kit.js';
import { twinPorts } from './wiring/twin-ports.js';
import { createRehearsalStore } from './store/rehearsal-store.js';
import { createAutoScalingPortFactory } from './aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from './aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from './aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from './aws/ssm-sdk-adapter.js';
import type { BotDeps } from './ports/bot-deps.js';
import type { ClustersConfig } from './config/clusters-config.js';
import { DEFAULT_WORKER_CONCURRENCY, type EnvConfig } from './config/env-config.js';
import { createKubePortFactory } from './kube/client-node-adapter.js';
import type { Logger } from './log/logger.js';
import type { RedisOutage } from './log/redis-outage.js';
import { systemClock, type Clock } from './ports/clock.js';
import { createPrometheusMetrics } from './prometheus/prom-client-metrics.js';
import { startMetricsServer } from './prometheus/metrics-server.js';
import { createSlackApp } from './slack/create-slack-app.js';
import { createSlackThreadPort } from './slack/thread/slack-thread-port.js';
import { createSlackWebClient } from './slack/slack-web-client.js';
import { createUsergroupResolver } from './slack/usergroup-resolver.js';
import { createUpgradeEngine } from '../jobs/worker/create-upgrade-engine.js';
import { createGuardReader } from './guards/create-guard-reader.js';
import { createCloudWatchGuardReader } from './aws/cloudwatch-guard-reader.js';
import { credentialProviderFor } from './aws/aws-client-config.js';
import { guardChecks } from './doctor/guard-checks.js';
import { createRehearsalQueue, startRehearsalWorker } from '../jobs/rehearsal/rehearsal-worker.js';
import { createCommandQueue, startCommandWorker } from '../jobs/slash-commands/slash-command-queue.js';
import { createWaiverStore } from './waivers/store/redis-waiver-store.js';
import { createFleetScheduler } from '../jobs/fleet/fleet-scheduler.js';
import { createChannelPoster } from './slack/channel-poster.js';
import { createGuardEvaluationStore } from './store/guard-evaluation-store.js';
import { createRolloutEngine } from '../jobs/rollout/rollout-engine.js';
import { createAwsProbePort } from './aws/doctor-sdk-adapter.js';
import { defaultClusterRoleFile, readClusterRoleRules } from './doctor/cluster-role-file.js';
import { runDoctor } from './doctor/run-doctor.js';
import { createSharedReads } from './cluster-reader/shared-reads.js';

export interface StartBotOptions {
  env: EnvConfig;
  config: ClustersConfig;
  logger: Logger;
  clock?: Clock;
  /** Explicit AWS endpoint and credentials (the demo's simulator); otherwise the SDK's standard chain and env. */
  aws?: {
    endpoint?: string;
    credentials?: AwsCredentialIdentity;
    webIdentityTokenFile?: string;
    /** How long an EKS token is reused (default 14 minutes); tests against a simulator with short-lived tokens shorten it. */
    eksTokenReuseMs?: number;
  };
  /** The logger's Redis outage tracker (src/log/redis-outage.ts): this process's own connections say when Redis is back. */
  redisOutage?: RedisOutage;
  /**
   * The thread outbox's pacing. Leave it out in production: the default is Slack's own limits, a burst of three posts
   * per channel, then one a second, and the workspace's chat.update budget (SLACK_EDITS_PER_MINUTE, default 50; src/slack/thread/slack-thread-port.ts).
   * Tests of the whole bot set tens of milliseconds so that an upgrade's thread does not take half a minute of real time.
   */
  threadPacing?: { minIntervalMs?: number; editsPerWindow?: number; editWindowMs?: number };
  /** How long a scheduled digest waits for one cluster's read (real time, default 20 s; FleetSchedulerOptions.readTimeoutMs). */
  fleetReadTimeoutMs?: number;
}

export interface RunningBot {
  /** HTTP port: /slack/events, /healthz and /metrics for web and all; /healthz and /metrics for workers. */
  port?: number;
  stop(): Promise<void>;
}

/**
 * Wires every adapter once (style rule 3) and starts what ROLE asks for: `web` serves Slack, `worker` runs upgrade
 * jobs and delivers thread posts, `all` does both in one process.
 */
export async function startBot(options: StartBotOptions): Promise<RunningBot> {
  const { env, config, logger } = options;
  const clock = options.clock ?? systemClock;
  // One metrics registry per process, served at /metrics by the Slack app (web, all) or the worker's own server.
  const metrics = createPrometheusMetrics({ defaultLabels: { role: env.ROLE } });
  const sdkOptions = { endpoint: options.aws?.endpoint, credentials: options.aws?.credentials, webIdentityTokenFile: options.aws?.webIdentityTokenFile, metrics };
  const eks = createEksPortFactory(sdkOptions);
  const ssm = createSsmPortFactory(sdkOptions);
  const ec2 = createEc2PortFactory(sdkOptions);
  const autoScaling = createAutoScalingPortFactory(sdkOptions);
  const kube = createKubePortFactory({ eks, credentials: options.aws?.credentials, aws: sdkOptions, clock, logger, metrics, tokenReuseMs: options.aws?.eksTokenReuseMs });

  // The bot's one Web API client beside Bolt's (which Bolt builds itself): thread posts, channel posts, user
  // groups, doctor. No retries of its own: the outbox does its own pacing and retries.
  const client = createSlackWebClient(env.SLACK_BOT_TOKEN, { apiUrl: env.SLACK_API_URL, logger });
  // Where Redis is (one node, or a Redis Cluster's seeds) and the prefix every queue and key lives under: unchanged
  // on one node, hash-tagged on a cluster so each queue's keys share a slot (src/store/redis-connection.ts).
  const connection = redisTargetOf(env);
  const prefix = keyPrefixFor(connection, env.QUEUE_PREFIX);
  // Every Redis connection and BullMQ object of this process (src/store/queue-kit.ts), closed last by stop().
  const queues = createQueueKit(connection, prefix);
  const editPacing = env.SLACK_EDITS_PER_MINUTE !== undefined ? { editsPerWindow: env.SLACK_EDITS_PER_MINUTE, editWindowMs: 60_000 } : {};
  const thread = createSlackThreadPort({ client, queues, logger: logger.child({ part: 'thread' }), clock, metrics, ...editPacing, ...options.threadPacing });
  // Guards (issue 29): read while a job runs; one that cannot be read now is a warning in the log, never a reason not to start.
  const guardReader = createGuardReader({ cloudWatch: createCloudWatchGuardReader(sdkOptions), credentialsFor: (target) => credentialProviderFor(target, sdkOptions) });
  if (config.clusters.some((cluster) => (cluster.guards ?? []).length > 0)) {
    void guardChecks(guardReader, config.clusters, clock.now()).then((checks) => {
      for (const check of checks) if (check.ok === null) logger.warn({ check: check.id }, `${check.detail}; ${check.fix}`);
    });
  }
  const engine = createUpgradeEngine({
    queues,
    config,
    eks,
    kube,
    ssm,
    ec2,
    autoScaling,
    thread,
    clock,
    logger: logger.child({ part: 'engine' }),
    pollIntervalMs: env.AWS_POLL_SECONDS * 1000,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    metrics,
    guards: guardReader,
    callsInFlight: env.WORKER_CALLS_IN_FLIGHT,
  });

  // The fleet's reads and channel posts, shared by rollouts and the digest/reminder scheduler.
  const fleetSources = { eks, ec2, ssm, kube, autoScaling, clock };
  const poster = createChannelPoster(client);
  // Rollouts in waves: the control for the Slack side, the worker (wave and lane jobs) for worker processes.
  const rollouts = createRolloutEngine({
    queues,
    config,
    sources: fleetSources,
    control: engine.control,
    poster,
    logger,
    pollMs: Math.max(200, env.AWS_POLL_SECONDS * 1000),
    guards: guardReader,
    // A read of a cluster is bounded in real time, whatever the bot's Clock (a demo's runs faster).
    deadlineClock: systemClock,
  });

  const stops: Array<() => Promise<void>> = [];
  let port: number | undefined;
  // The bot's own Redis clients: their errors go to the log (once per outage, see redis-outage.ts), never to
  // ioredis's "Unhandled error event" on stderr; the first to reconnect says the outage is over.
  const ownRedis = (): RedisClient => {
    const redis = queues.redis({ maxRetriesPerRequest: 3 });
    redis.on('error', (err: Error) => logger.warn({ err }, 'Redis connection failed'));
    redis.on('ready', () => {
      const lasted = options.redisOutage?.recovered();
      if (lasted !== undefined) logger.info({ outageSeconds: Math.round(lasted / 1000) }, 'Redis is reachable again');
    });
    return redis;
  };
  // What slash commands run with: in web processes, and in workers for the read-only commands web hands them.
  const commandDeps = (): BotDeps => {
    const waiverRedis = ownRedis();
    const rehearsalQueue = createRehearsalQueue(queues);
    stops.push(() => rehearsalQueue.close());
    return {
      config,
      eks,
      ssm,
      ec2,
      autoScaling,
      kube,
      control: engine.control,
      audit: engine.audit,
      usergroups: createUsergroupResolver(client, clock, 5 * 60_000),
      clock,
      logger,
      statusConcurrency: env.STATUS_CONCURRENCY,
      sharedReads: createSharedReads(),
      waivers: createWaiverStore(waiverRedis, prefix, () => `w${randomUUID().slice(0, 7)}`),
      rollouts: rollouts.control,
      rehearsals: createRehearsalStore(waiverRedis, prefix),
      guardEvaluations: createGuardEvaluationStore(waiverRedis, prefix),
      rehearsalQueue,
      // `/eks-upgrade doctor`: the CLI's checks with this process's own credentials, token and Redis.
      doctor: () => runDoctor({ config, aws: createAwsProbePort(sdkOptions), eks, ssm, kube, rules: readClusterRoleRules(defaultClusterRoleFile()), slack: { client, apiUrl: env.SLACK_API_URL }, redisUrl: connection, guards: guardReader, now: clock.now() }),
    };
  };
  try {
    if (env.ROLE !== 'web') {
      await thread.start();
      await engine.startWorker({ concurrency: env.WORKER_CONCURRENCY ?? DEFAULT_WORKER_CONCURRENCY });
      // Digests and support reminders on their schedules (BullMQ job schedulers on the bot's Clock).
      const fleetRedis = ownRedis();
      const fleet = createFleetScheduler({
        queues,
        config,
        sources: fleetSources,
        control: engine.control,
        poster,
        logger,
        waivers: createWaiverStore(fleetRedis, prefix, () => `w${randomUUID().slice(0, 7)}`),
        readTimeoutMs: options.fleetReadTimeoutMs,
      });
      await fleet.start();
      await rollouts.startWorker();
      stops.push(() => fleet.close());
      const rehearsalRedis = ownRedis();
      const rehearsals = await startRehearsalWorker({
        queues,
        twinPorts,
        config,
        sources: { eks, ssm, ec2, autoScaling, kube, clock },
        thread,
        store: createRehearsalStore(rehearsalRedis, prefix),
        logger: logger.child({ part: 'rehearsal' }),
      });
      stops.push(() => rehearsals.close());
      if (env.ROLE === 'worker') {
        const commands = await startCommandWorker({ queues, commands: createSlashCommandRouter(commandDeps()), logger: logger.child({ part: 'commands' }), metrics });
        stops.unshift(() => commands.close());
      }
    }
    if (env.ROLE !== 'worker') {
      const deps = commandDeps();
      // ROLE=web: status, plan and digest read AWS in the workers; ROLE=all runs them here (one process either way).
      const commandQueue = env.ROLE === 'web' ? createCommandQueue(queues) : undefined;
      if (commandQueue) stops.push(() => commandQueue.close());
      const slack = await createSlackApp({ env, deps, commands: createSlashCommandRouter(deps), logger: logger.child({ part: 'slack' }), metrics, handOff: commandQueue });
      await slack.start();
      port = slack.port;
      // The app stops taking requests before the queue and Redis connections it uses close.
      stops.unshift(() => slack.stop());
    } else {
      const server = await startMetricsServer({ port: env.PORT, metrics, logger, role: env.ROLE });
      port = server.port;
      stops.push(() => server.close());
    }
  } catch (error) {
    await Promise.allSettled([rollouts.close(), engine.close(), thread.close()]);
    await queues.close();
    throw error;
  }
  // Stop taking requests first, then let the worker finish its current step (BullMQ close waits), then the outbox;
  // the Redis connections everything above used go last.
  stops.push(() => rollouts.close(), () => engine.close(), () => thread.close(), () => queues.close());
  logger.info({ role: env.ROLE, port, clusters: config.clusters.map((c) => c.name) }, 'eks-upgrade-bot started');
  return {
    port,
    async stop() {
      for (const stop of stops) await stop().catch((error) => logger.warn({ err: error }, 'error while stopping'));
    },
  };
}
