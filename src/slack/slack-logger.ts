/**
 * Bolt and the Slack WebClient log through this adapter onto our pino logger, whose hooks mask anything shaped like
 * a token. Objects are rendered with util.inspect (Bolt logs errors and request bodies); Slack's libraries may not
 * change our level, so setLevel is ignored and getLevel reports pino's.
 */

import { inspect } from 'node:util';
import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../log/logger.js';

export function slackLoggerFrom(logger: Logger, bindings: Record<string, string>): SlackLogger {
  const child = logger.child(bindings);
  const line = (parts: unknown[]) => parts.map((part) => (typeof part === 'string' ? part : inspect(part, { depth: 3, breakLength: Infinity }))).join(' ');
  return {
    // Bolt logs a few debug lines for every request: a line below the level is not rendered at all.
    debug: (...parts) => child.isLevelEnabled('debug') && child.debug(line(parts)),
    info: (...parts) => child.isLevelEnabled('info') && child.info(line(parts)),
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
