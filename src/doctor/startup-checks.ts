import { LogLevel, type Logger as SlackLogger, type WebClient } from '@slack/web-api';
import { failed, type AwsProbePort, type DoctorCheck } from '../ports/doctor-check.js';
import { identityCheck } from './aws-checks.js';
import { connectOnce, redisUnusable } from './redis-checks.js';
import { slackAuthCheck } from './slack-checks.js';
import type { RedisTarget } from '../store/redis-connection.js';

/**
 * What must hold before the bot starts, as doctor words it: a region, a Redis that answers and accepts AUTH, a
 * Slack that answers and accepts the token (a network error is told apart from a rejected token), AWS credentials.
 * Each is bounded, so a bot that cannot start says why and exits within seconds (Kubernetes restarts it) instead of
 * retrying forever. Returns only the failures. After start-up, outages are retried as before.
 */
export interface StartupInput {
  region?: string;
  /** REDIS_URL, or the whole target when REDIS_CLUSTER_NODES names a cluster. */
  redisUrl: string | RedisTarget;
  /**
   * The client auth.test is asked through, built by the entry point (src/main.ts): no retries, a timeout of
   * STARTUP_TIMEOUT_MS and silentSlackLogger, so a Slack that cannot be reached is one line within seconds.
   */
  slack: WebClient;
  slackApiUrl?: string;
  aws: AwsProbePort;
  timeoutMs?: number;
}

/** How long each start-up check may take (the Slack client's request timeout is the same). */
export const STARTUP_TIMEOUT_MS = 3_000;

/** Silent: the one line startupLine prints says what went wrong; web-api would warn about the failed request too. */
export const silentSlackLogger: SlackLogger = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => LogLevel.ERROR, setName() {} };

export const REGION_FIX = 'fill `region` of the eks-upgrade-bot-aws ConfigMap in your overlay (deploy/overlays/example/kustomization.yaml), or set AWS_REGION';

async function bounded(work: Promise<DoctorCheck | undefined>, ms: number, late: () => DoctorCheck | undefined): Promise<DoctorCheck | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<DoctorCheck | undefined>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startupChecks(input: StartupInput): Promise<DoctorCheck[]> {
  const ms = input.timeoutMs ?? STARTUP_TIMEOUT_MS;
  const region = input.region
    ? undefined
    : failed('config', 'config.region', 'AWS_REGION is not set, so the bot does not know its own region', REGION_FIX);
  const redis = bounded(
    connectOnce(input.redisUrl, ms).then((client) => void client.disconnect(), (error: unknown) => redisUnusable(input.redisUrl, error)),
    ms + 1_000,
    () => redisUnusable(input.redisUrl, Object.assign(new Error(`no answer within ${Math.round(ms / 1000)} s`), { code: 'ETIMEDOUT' })),
  );
  const slack = bounded(
    slackAuthCheck(input.slack, input.slackApiUrl).then(({ check }) => (check.ok ? undefined : check)),
    ms + 1_000,
    () => failed('slack', 'slack.auth', `Slack did not answer auth.test within ${Math.round(ms / 1000)} s at ${input.slackApiUrl ?? 'https://slack.com/api/'}`, 'let the bot reach Slack over HTTPS (egress, proxy)'),
  );
  // Only missing credentials stop start-up: STS being slow or throttled is an outage the bot rides out.
  const aws = bounded(
    identityCheck(input.aws, input.region ?? 'us-east-1').then(({ check }) => (check.ok === false && check.detail === 'no AWS credentials were found' ? check : undefined)),
    ms + 1_000,
    () => undefined,
  );
  const results = await Promise.all([region, redis, slack, aws]);
  return results.filter((check): check is DoctorCheck => check !== undefined);
}

/** One line for a start-up failure: what failed, then what to do. */
export function startupLine(check: DoctorCheck): string {
  return `eks-upgrade-bot: cannot start: ${check.detail}; ${check.fix ?? 'see docs/deploy.md'}.`;
}
