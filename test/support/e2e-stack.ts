import { Writable } from 'node:stream';
import { EKSClient } from '@aws-sdk/client-eks';
import * as k8s from '@kubernetes/client-node';
import { parseClustersConfig, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { EnvConfig } from '../../src/config/env-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { createSimClock, type FakeSlack, loadIamPolicyFile, loadRbacFile, type PolicyDocument, type SimServer, startFakeSlack, startSimulator } from '@eks-upgrade-bot/sim';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { keyPrefixFor, type RedisTarget } from '../../src/store/redis-connection.js';
import { deleteKeys, freshPrefix, redisUrl } from './redis-url.js';

/**
 * The whole product as a Slack user meets it, for the issue-5 acceptance tests: the simulator over HTTP (fast
 * world), the fake Slack signing every command and click, and the real bot (`startBot`: Bolt, BullMQ worker on the
 * real Redis, thread outbox) on real time with a short AWS poll and a fast thread outbox. ROLE 'web' leaves the worker to a process of the
 * test's own (see e2e-worker-process.ts). Every stack has a fresh queue prefix, removed from Redis on close.
 */
export const E2E_SECRET = 'e2e-signing-secret-0123456789';
export const E2E_BOT_TOKEN = 'xoxb-e2e-token';
export const E2E_APP_TOKEN = 'xapp-1-A0FAKEAPP-1-e2e';
export const E2E_CREDENTIALS = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
/** The thread outbox's interval between two Slack calls to one channel in fast stacks (production: 1000 ms). */
export const E2E_THREAD_INTERVAL_MS = 25;

export interface E2eStackOptions {
  scenario: string;
  /** The simulator's port (default a free one): for a server configured before the stack starts, e.g. a Prometheus scraping it. */
  simPort?: number;
  /**
   * The fake Slack's rate limits. Default: 'on' with `threadPace: 'slack'`, 'off' with the fast pace — a thread paced
   * at E2E_THREAD_INTERVAL_MS would otherwise be held to Slack's real one post per second per channel by 429s, which
   * is what the fast pace exists to avoid. Slack's limits stay proven with them on: the real-pace test
   * (test/e2e/slack-upgrade-flow.test.ts) and test/integration/fake-slack-rate-limits.test.ts.
   */
  slackRateLimits?: 'on' | 'off';
  /** Raw `clusters:` entries of clusters.yaml (validated by the product's own parser). */
  clusters: unknown[];
  /** Simulator speed (simulated ms per real ms); 300–600 keeps a 10-minute control-plane update at 1–2 s. */
  speed?: number;
  role?: 'all' | 'web';
  pollSeconds?: number;
  prefix?: string;
  /** Every log line the bot writes (level debug), for tests that read the logs themselves. */
  logLines?: string[];
  /** A Redis of the test's own (e.g. one it restarts); default the shared REDIS_URL. */
  redisUrl?: string;
  /** A Redis Cluster (test/support/redis-cluster.ts): the bot gets its seeds as REDIS_CLUSTER_NODES; its keys are removed from every master on close. */
  redisCluster?: { target: RedisTarget };
  /** AWS credentials the bot signs with (default E2E_CREDENTIALS; the simulator accepts any). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** 'sim': the bot runs on the simulator's clock (its Clock port), so POST /_sim/jump moves the bot's time too. */
  botClock?: 'system' | 'sim';
  /** Where the simulated calendar starts (epoch ms; default now), e.g. a minute before a digest's tick. */
  simStart?: number;
  /** Raw `digests:` entries of clusters.yaml. */
  digests?: unknown[];
  /** startBot's fleetReadTimeoutMs: how long a scheduled digest waits for one cluster's read (default 20 s). */
  fleetReadTimeoutMs?: number;
  /** For the generated `fleet` scenario: how many clusters (default 20). */
  fleetClusters?: number;
  /** For the generated `fleet` scenario: every cluster healthy at this version (default mixed, some broken). */
  fleetVersion?: string;
  /** For the generated `scale` scenario: Karpenter nodes, NodePools, managed-node-group nodes. */
  scale?: { nodes?: number; pools?: number; mngNodes?: number };
  /**
   * The access the simulator enforces: by default the IAM policy and the ClusterRole that deploy/ ships, so every
   * end-to-end upgrade proves them sufficient. Tests that show a denial pass a narrower copy.
   */
  access?: { iamPolicy?: PolicyDocument; rbac?: KubeObject[]; accessEntryGroups?: string[] };
  /**
   * How the thread outbox paces Slack calls per channel: 'fast' (default) every E2E_THREAD_INTERVAL_MS, so an
   * upgrade's thread does not wait on Slack's limit; 'slack' leaves startBot's production default (one per second),
   * for the one test that holds the bot to that pace.
   */
  threadPace?: 'fast' | 'slack';
  /** Socket Mode: the bot opens a WebSocket to the fake (SLACK_APP_TOKEN, no signing secret) instead of serving HTTP. */
  socketMode?: boolean;
  /** The bot's AWS wiring, when a test needs other than static credentials (web identity). */
  aws?: { credentials?: { accessKeyId: string; secretAccessKey: string }; webIdentityTokenFile?: string };
  /**
   * A shorter EKS token lifetime (wall-clock ms) for the simulator, and the bot's token reuse to match: tests that
   * show an upgrade outliving its first token. Every other rule of the simulator stays on.
   */
  eksTokens?: { lifetimeMs: number; reuseMs: number };
}

export const DEPLOY_IAM_POLICY = loadIamPolicyFile('deploy/iam/permissions-policy.json');
export const DEPLOY_RBAC = loadRbacFile('deploy/rbac/cluster-role.yaml');

/** One accepted mutating AWS call as GET /_sim/calls lists it. */
export interface SimCall {
  service?: string;
  operation: string;
  cluster?: string;
  target?: string;
  at: number;
}

export interface E2eStack {
  sim: SimServer;
  fake: FakeSlack;
  bot: RunningBot;
  env: EnvConfig;
  config: ClustersConfig;
  prefix: string;
  /** The outbox's interval the bot runs with (undefined: the production default), for worker processes to match. */
  threadIntervalMs?: number;
  /** The accepted mutating calls, read over HTTP from the simulator's control API (optionally one operation). */
  acceptedCalls(operation?: string): Promise<SimCall[]>;
  /** Every AWS call IAM refused and every Kubernetes request RBAC refused, as the simulator's messages. */
  deniedCalls(): string[];
  /** The real EKS SDK client against the simulator, for DescribeAddon / ListNodegroups as an operator would. */
  eksClient(): EKSClient;
  /** A client-node KubeConfig for one simulated cluster's API (`${url}/k8s/<cluster>`, token "sim"). */
  kubeConfig(cluster: string): k8s.KubeConfig;
  close(): Promise<void>;
}

export async function startE2eStack(opts: E2eStackOptions): Promise<E2eStack> {
  const sim = await startSimulator({
    scenario: opts.scenario,
    port: opts.simPort ?? 0,
    host: '127.0.0.1',
    speed: opts.speed ?? 600,
    ...(opts.simStart !== undefined ? { clock: createSimClock(opts.speed ?? 600, opts.simStart) } : {}),
    ...(opts.fleetClusters !== undefined ? { clusters: opts.fleetClusters } : {}),
    ...(opts.fleetVersion !== undefined ? { fleetVersion: opts.fleetVersion } : {}),
    ...(opts.scale ?? {}),
    iamPolicy: opts.access?.iamPolicy ?? DEPLOY_IAM_POLICY,
    rbac: { objects: opts.access?.rbac ?? DEPLOY_RBAC, accessEntryGroups: opts.access?.accessEntryGroups },
    ...(opts.eksTokens ? { strictness: { eksTokenLifetimeMs: opts.eksTokens.lifetimeMs } } : {}),
  });
  const fake = await startFakeSlack({ signingSecret: E2E_SECRET, userNames: { U0REQ: 'requester', U0APP: 'approver' }, rateLimits: opts.slackRateLimits ?? (opts.threadPace === 'slack' ? 'on' : 'off'), socketMode: opts.socketMode });
  const prefix = opts.prefix ?? freshPrefix('e2e');
  const env: EnvConfig = {
    SLACK_BOT_TOKEN: E2E_BOT_TOKEN,
    ...(opts.socketMode ? { SLACK_APP_TOKEN: E2E_APP_TOKEN } : { SLACK_SIGNING_SECRET: E2E_SECRET }),
    SLACK_API_URL: fake.apiUrl,
    REDIS_URL: opts.redisUrl ?? redisUrl,
    ...(opts.redisCluster ? { REDIS_CLUSTER_NODES: opts.redisCluster.target.cluster?.nodes } : {}),
    PORT: 0,
    CLUSTERS_FILE: 'unused.yaml',
    LOG_LEVEL: 'silent',
    ROLE: opts.role ?? 'all',
    QUEUE_PREFIX: prefix,
    // The bot runs on real time, as in production; only the simulator's world runs fast (and, unless threadPace is
    // 'slack', the thread outbox's pacing).
    AWS_POLL_SECONDS: opts.pollSeconds ?? 0.2,
    SHUTDOWN_TIMEOUT_SECONDS: 25,
    AUDIT_RETENTION_DAYS: 400,
  };
  const threadIntervalMs = opts.threadPace === 'slack' ? undefined : E2E_THREAD_INTERVAL_MS;
  const config = parseClustersConfig({ clusters: opts.clusters, ...(opts.digests ? { digests: opts.digests } : {}) });
  let bot: RunningBot;
  try {
    bot = await startBot({
      env,
      config,
      logger: opts.logLines
        ? createLogger({ level: 'debug', destination: new Writable({ write: (chunk, _encoding, done) => void (opts.logLines!.push(...String(chunk).split('\n').filter(Boolean)), done()) }) })
        : createLogger({ level: (process.env.E2E_LOG as 'info' | undefined) ?? 'silent' }),
      aws: { endpoint: sim.url, ...(opts.aws ?? { credentials: opts.credentials ?? E2E_CREDENTIALS }), ...(opts.eksTokens ? { eksTokenReuseMs: opts.eksTokens.reuseMs } : {}) },
      ...(opts.botClock === 'sim' ? { clock: sim.clock } : {}),
      ...(threadIntervalMs !== undefined ? { threadPacing: { minIntervalMs: threadIntervalMs } } : {}),
      ...(opts.fleetReadTimeoutMs !== undefined ? { fleetReadTimeoutMs: opts.fleetReadTimeoutMs } : {}),
    });
  } catch (error) {
    await fake.close();
    await sim.close();
    throw error;
  }
  fake.setBotEventsUrl(`http://127.0.0.1:${bot.port}/slack/events`);
  return {
    sim,
    fake,
    bot,
    env,
    config,
    prefix,
    threadIntervalMs,
    async acceptedCalls(operation) {
      const query = operation ? `?operation=${encodeURIComponent(operation)}` : '';
      const res = await fetch(`${sim.url}/_sim/calls${query}`);
      if (!res.ok) throw new Error(`GET /_sim/calls answered ${res.status}`);
      return ((await res.json()) as { calls: SimCall[] }).calls;
    },
    deniedCalls: () => sim.world.rejectedCalls.flatMap((call) => (call.denied ? [call.denied] : [])),
    eksClient: () => new EKSClient({ endpoint: sim.url, region: 'us-west-2', credentials: E2E_CREDENTIALS, maxAttempts: 3 }),
    kubeConfig(cluster) {
      // client-node refuses plain http unless TLS checks are off; the simulator speaks http on 127.0.0.1.
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: cluster, server: `${sim.url}/k8s/${cluster}`, skipTLSVerify: true }],
        users: [{ name: 'sim', token: 'sim' }],
        contexts: [{ name: cluster, cluster, user: 'sim' }],
        currentContext: cluster,
      });
      return kc;
    },
    async close() {
      await bot.stop().catch(() => undefined);
      await fake.close().catch(() => undefined);
      await sim.close().catch(() => undefined);
      if (opts.redisCluster) await deleteKeys(`${keyPrefixFor(opts.redisCluster.target, prefix)}:*`, opts.redisCluster.target).catch(() => undefined);
      else if (!opts.redisUrl) await deleteKeys(`${prefix}:*`).catch(() => undefined);
    },
  };
}
