/** The bot's environment (docs/configuration.md). Missing or malformed values stop start-up with one line. */

import { z } from 'zod';
import { ConfigError } from './clusters-config.js';
import { plainIssueMessage } from './plain-issues.js';

/** Never echoed back in an error ("got …"). */
const SECRETS = new Set(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_PASSWORD']);

/** Clusters of one AWS account and Region `status --all` reads at once unless STATUS_CONCURRENCY says otherwise (the bot and the CLI). */
export const DEFAULT_STATUS_CONCURRENCY = 32;
/** Upgrade jobs one worker process runs at once unless WORKER_CONCURRENCY says otherwise. */
export const DEFAULT_WORKER_CONCURRENCY = 10;
/**
 * AWS and Kubernetes calls the upgrade jobs of one worker process have in flight together unless
 * WORKER_CALLS_IN_FLIGHT says otherwise. Bench P7: fifty jobs starting at once, each reading its cluster, held the
 * worker's event loop up to 160–280 ms at a time (every answer that came back was handled in one turn of the loop);
 * with 16 at once the worst 2 s window was 72–81 ms, and the fifty upgrades took as long.
 */
export const DEFAULT_WORKER_CALLS_IN_FLIGHT = 16;

/** One seed node of REDIS_CLUSTER_NODES: `host:port`, or a URL carrying TLS (rediss://) and AUTH (user:password@). */
export interface RedisSeed {
  host: string;
  port: number;
  tls?: boolean;
  username?: string;
  password?: string;
}

function parseSeed(entry: string): RedisSeed | undefined {
  if (/^rediss?:\/\//.test(entry)) {
    try {
      const url = new URL(entry);
      const port = Number(url.port || 6379);
      if (!url.hostname || !Number.isInteger(port)) return undefined;
      return {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port,
        ...(url.protocol === 'rediss:' ? { tls: true } : {}),
        ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      };
    } catch {
      return undefined;
    }
  }
  const match = /^([^\s:/]+|\[[0-9a-f:]+\]):(\d{1,5})$/i.exec(entry);
  if (!match || Number(match[2]) > 65535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

const clusterNodes = z.string().transform((raw, ctx) => {
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const seeds = entries.map(parseSeed);
  const bad = entries.filter((_, i) => seeds[i] === undefined);
  if (entries.length === 0 || bad.length > 0) {
    // Never echo the entries: a URL form may carry the password.
    const what = entries.length === 0 ? 'it names none' : `${bad.length} of its ${entries.length} entries ${bad.length === 1 ? 'is' : 'are'} not host:port`;
    ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of seed nodes like host1:6379,host2:6379 (or rediss://:password@host:6379); ${what}` });
    return z.NEVER;
  }
  return seeds as RedisSeed[];
});

const envSchema = z.object({
  SLACK_BOT_TOKEN: z.string().regex(/^xox[bp]-/, 'must be a bot token starting with xoxb-'),
  // Slack's signing secrets are 32 hex characters (Basic Information → App Credentials); 8 catches a truncated paste.
  // Optional only in Socket Mode (SLACK_APP_TOKEN set), where nothing is signed: see parseEnv.
  SLACK_SIGNING_SECRET: z.string().min(8, 'is too short: it must be at least 8 characters (Slack\'s signing secret is 32, under Basic Information → App Credentials)').optional(),
  SLACK_APP_TOKEN: z.string().regex(/^xapp-/, 'must be an app-level token starting with xapp-').optional(),
  SLACK_API_URL: z.url('must be a URL like http://127.0.0.1:8888/api/').optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').default('redis://127.0.0.1:6379'),
  /** Seed nodes of a Redis Cluster; wins over REDIS_URL (docs/configuration.md, "Redis Cluster"). */
  REDIS_CLUSTER_NODES: clusterNodes.optional(),
  /** TLS to every Redis node (ElastiCache in-transit encryption); rediss:// URLs say so themselves. */
  REDIS_TLS: z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true').optional(),
  /** AUTH for every Redis node (ElastiCache's AUTH token, or an ACL user's password with REDIS_USERNAME). */
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  PORT: z.coerce.number().int().min(0, 'must be a port number (0 picks a free one)').max(65535, 'must be a port number').default(3000),
  CLUSTERS_FILE: z.string().default('clusters.yaml'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ROLE: z.enum(['all', 'web', 'worker']).default('all'),
  QUEUE_PREFIX: z.string().default('eks-upgrade'),
  /** How often long AWS operations (DescribeUpdate) are polled: a bounded rate, not a busy loop. */
  AWS_POLL_SECONDS: z.coerce.number().positive().default(15),
  /** SIGTERM to exit at most this long: under Kubernetes' default 30 s grace, so the pod is never SIGKILLed mid-write. */
  /** How long the audit trail (approvals, Force reasons, pauses, refusals) is kept in Redis. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().positive().max(3650).default(400),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(25),
  /** Upgrade jobs one worker process runs at once (BullMQ worker concurrency; DEFAULT_WORKER_CONCURRENCY); more wait in the queue. */
  WORKER_CONCURRENCY: z.coerce.number({ error: 'must be a whole number of jobs, like 10' }).int('must be a whole number of jobs').min(1, 'must be at least 1').max(500, 'must be at most 500').optional(),
  /** AWS and Kubernetes calls the upgrade jobs of one worker process have in flight together (DEFAULT_WORKER_CALLS_IN_FLIGHT); more wait their turn. */
  WORKER_CALLS_IN_FLIGHT: z.coerce.number({ error: 'must be a whole number of calls, like 16' }).int('must be a whole number of calls').min(1, 'must be at least 1').max(1000, 'must be at most 1000').optional(),
  /**
   * chat.update calls the whole workspace may make a minute (Slack's Tier 3: "50+ per minute"); every channel's edits
   * share it. Raise it only where Slack grants this app more.
   */
  SLACK_EDITS_PER_MINUTE: z.coerce.number({ error: 'must be a whole number of edits, like 50' }).int('must be a whole number of edits').min(1, 'must be at least 1').max(100_000, 'must be at most 100000').optional(),
  /** Clusters of one AWS account and Region `status --all` reads at once (each with its own deadline; collect-statuses.ts). */
  STATUS_CONCURRENCY: z.coerce.number({ error: 'must be a whole number of clusters, like 8' }).int('must be a whole number of clusters').min(1, 'must be at least 1').max(1000, 'must be at most 1000').optional(),
});

export type EnvConfig = z.infer<typeof envSchema>;

const cleanedEnv = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));

/** Every problem at once, one line each: fixing one to be told of the next wastes a deploy per variable. */
function issueLines(issues: readonly z.core.$ZodIssue[], cleaned: Record<string, unknown>): string[] {
  return issues.map((issue) => {
    const name = String(issue.path[0]);
    const value = SECRETS.has(name) ? undefined : cleaned[name];
    const message = issue.code === 'invalid_type' && cleaned[name] === undefined ? 'is required' : plainIssueMessage(issue, value);
    return `environment: ${name} ${message}`;
  });
}

const redisEnvSchema = envSchema.pick({ REDIS_URL: true, REDIS_CLUSTER_NODES: true, REDIS_TLS: true, REDIS_USERNAME: true, REDIS_PASSWORD: true, QUEUE_PREFIX: true });
export type RedisEnvConfig = z.infer<typeof redisEnvSchema>;

/** Only the Redis variables, with the bot's rules and defaults: for the terminal CLI, which needs no Slack token. */
export function parseRedisEnv(env: NodeJS.ProcessEnv): RedisEnvConfig {
  const cleaned = cleanedEnv(env);
  const result = redisEnvSchema.safeParse(cleaned);
  if (!result.success) throw new ConfigError(issueLines(result.error.issues, cleaned).sort().join('\n'));
  return result.data;
}

export function parseEnv(env: NodeJS.ProcessEnv): EnvConfig {
  const cleaned = cleanedEnv(env);
  const result = envSchema.safeParse(cleaned);
  const lines = issueLines(result.error?.issues ?? [], cleaned);
  // HTTP mode verifies every request with the signing secret; Socket Mode gets its events over a WebSocket opened
  // with the app-level token, so nothing is signed (https://api.slack.com/apis/connections/socket-implement).
  if (cleaned.SLACK_APP_TOKEN === undefined && cleaned.SLACK_SIGNING_SECRET === undefined) {
    lines.push('environment: SLACK_SIGNING_SECRET is required (or set SLACK_APP_TOKEN to use Socket Mode, which needs no signing secret)');
  }
  if (lines.length > 0 || !result.success) throw new ConfigError(lines.sort().join('\n'));
  return result.data;
}
