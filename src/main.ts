import './log/quiet-node-version-warning.js';
import { ConfigError, loadClustersConfig } from './config/clusters-config.js';
import { parseEnv } from './config/env-config.js';
import { createLogger } from './log/logger.js';
import { createRedisOutage } from './log/redis-outage.js';
import { startBot } from './start-bot.js';
import { createAwsProbePort } from './aws/doctor-sdk-adapter.js';
import { silentSlackLogger, startupChecks, startupLine, STARTUP_TIMEOUT_MS } from './doctor/startup-checks.js';
import { WebClient } from '@slack/web-api';
import { redisTargetOf } from './store/redis-connection.js';

/**
 * Entry point: `npm start`. Configuration problems stop start-up with one line naming the bad field; SIGTERM and
 * SIGINT drain gracefully (the current step finishes or is left resumable; queued Slack posts stay in Redis).
 */
async function main(): Promise<void> {
  const env = parseEnv(process.env);
  const redisOutage = createRedisOutage(env.REDIS_URL);
  const logger = createLogger({ level: env.LOG_LEVEL, redisOutage });
  const config = await loadClustersConfig(env.CLUSTERS_FILE);
  // Redis, Slack, the region and AWS credentials checked first, in doctor's words: one line each and exit 1.
  const webIdentityTokenFile = process.env.AWS_WEB_IDENTITY_TOKEN_FILE || undefined;
  const problems = await startupChecks({
    region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || undefined,
    redisUrl: redisTargetOf(env),
    // One try, bounded and silent: a Slack that cannot be reached is the one line below, within seconds.
    slack: new WebClient(env.SLACK_BOT_TOKEN, { ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}), retryConfig: { retries: 0 }, timeout: STARTUP_TIMEOUT_MS, logger: silentSlackLogger }),
    slackApiUrl: env.SLACK_API_URL,
    aws: createAwsProbePort({ maxAttempts: 1, webIdentityTokenFile }),
  });
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`${startupLine(problem)}\n`);
    process.exit(1);
  }
  // Under IRSA a cluster's roleArn is assumed straight from the pod's web identity (see aws-client-config.ts).
  const bot = await startBot({ env, config, logger, aws: { webIdentityTokenFile }, redisOutage });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS }, 'shutting down');
    // Stopping waits for the current step to reach a safe point and for Redis and Slack to answer; when one of them
    // is gone those waits never end. Past the bound the process exits anyway: the job's BullMQ lock then lapses and
    // another worker resumes the step from the cluster's state, which is what every step is built for.
    const deadline = setTimeout(() => {
      logger.warn({ signal, timeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS }, 'graceful stop took too long; exiting, the current step stays resumable');
      process.exit(1);
    }, env.SHUTDOWN_TIMEOUT_SECONDS * 1000);
    deadline.unref();
    bot.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`eks-upgrade-bot: ${error.message}\n`);
  } else {
    process.stderr.write(`eks-upgrade-bot: could not start: ${(error as Error).message}\n`);
  }
  process.exit(1);
});
