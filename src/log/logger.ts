import { pino, type Logger, type LoggerOptions } from 'pino';
import type { RedisOutage } from './redis-outage.js';

export type { Logger };

/**
 * Paths pino blanks out wherever they appear in a log object: Slack tokens and signing secret, AWS keys and
 * session tokens, bearer tokens. Secrets must never reach logs, even at debug level.
 */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'appToken',
  '*.appToken',
  'signingSecret',
  '*.signingSecret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-slack-signature"]',
  'accessKeyId',
  '*.accessKeyId',
  'secretAccessKey',
  '*.secretAccessKey',
  'sessionToken',
  '*.sessionToken',
  'credentials',
  '*.credentials',
  'env.SLACK_BOT_TOKEN',
  'env.SLACK_SIGNING_SECRET',
  'env.SLACK_APP_TOKEN',
  'env.AWS_SECRET_ACCESS_KEY',
  'env.AWS_SESSION_TOKEN',
];

// Values that look like secrets are masked even under unexpected keys (e.g. inside an error message).
const SECRET_PATTERNS: RegExp[] = [/xox[abposr]-[A-Za-z0-9-]+/g, /xapp-[A-Za-z0-9-]+/g, /k8s-aws-v1\.[A-Za-z0-9_-]+/g, /AKIA[0-9A-Z]{16}/g];

export function maskSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((acc, pattern) => acc.replace(pattern, '[Redacted]'), text);
}

export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream; name?: string; redisOutage?: RedisOutage } = {}): Logger {
  const outage = options.redisOutage;
  const config: LoggerOptions = {
    name: options.name ?? 'eks-upgrade-bot',
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    formatters: {
      log(object) {
        // Message strings and error messages may carry a token by accident (an SDK error echoing a header).
        for (const [key, value] of Object.entries(object)) {
          if (typeof value === 'string') object[key] = maskSecrets(value);
        }
        return object;
      },
    },
    hooks: {
      logMethod(args, method) {
        // A lost Redis connection is logged once per outage, whoever reports it (see redis-outage.ts).
        const first = args[0] as { err?: unknown } | undefined;
        const error = first instanceof Error ? first : first?.err;
        if (outage && error && outage.isConnectionError(error)) {
          if (!outage.failed()) return;
          method.apply(this, [{ err: error }, 'Redis is unavailable: the bot keeps retrying, and logs again when it is back'] as unknown as typeof args);
          return;
        }
        const masked = args.map((arg) => (typeof arg === 'string' ? maskSecrets(arg) : arg)) as typeof args;
        method.apply(this, masked);
      },
    },
    serializers: {
      err: (error: Error) => ({ type: error.name, message: maskSecrets(error.message), code: (error as { code?: unknown }).code }),
    },
  };
  return options.destination ? pino(config, options.destination as any) : pino(config);
}
