/** The bot's environment (README "Configuration"). Missing or malformed values stop start-up with one line. */

import { z } from 'zod';
import { ConfigError } from './clusters-config.js';

const envSchema = z.object({
  SLACK_BOT_TOKEN: z.string().regex(/^xox[bp]-/, 'must be a bot token starting with xoxb-'),
  SLACK_SIGNING_SECRET: z.string().min(8, 'must be the app\'s signing secret'),
  SLACK_APP_TOKEN: z.string().regex(/^xapp-/, 'must be an app-level token starting with xapp-').optional(),
  SLACK_API_URL: z.url('must be a URL like http://127.0.0.1:8888/api/').optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').default('redis://127.0.0.1:6379'),
  PORT: z.coerce.number().int().min(0, 'must be a port number (0 picks a free one)').max(65535, 'must be a port number').default(3000),
  CLUSTERS_FILE: z.string().default('clusters.yaml'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ROLE: z.enum(['all', 'web', 'worker']).default('all'),
  QUEUE_PREFIX: z.string().default('eks-upgrade'),
  /** How often long AWS operations (DescribeUpdate) are polled: a bounded rate, not a busy loop. */
  AWS_POLL_SECONDS: z.coerce.number().positive().default(15),
});

export type EnvConfig = z.infer<typeof envSchema>;

export function parseEnv(env: NodeJS.ProcessEnv): EnvConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue.path[0]);
    const message = issue.code === 'invalid_type' && cleaned[name] === undefined ? 'is required' : issue.message;
    throw new ConfigError(`environment: ${name} ${message}`);
  }
  return result.data;
}
