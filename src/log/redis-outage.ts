/**
 * One log line when Redis goes away and one when it is back, instead of one per retry of every connection (the
 * upgrade worker's, the outbox's, the schedulers', each reconnecting every second or so). The logger's hook asks
 * `swallow` about every line: a Redis connection error during an outage already announced is dropped.
 */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

export interface RedisOutage {
  /** Whether this error is a lost connection to the bot's Redis (not, say, a cluster's API refusing a connection). */
  isConnectionError(error: unknown): boolean;
  /** Marks the outage started; true only for the first error of an outage (the one line to log). */
  failed(): boolean;
  /** Marks Redis reachable; the outage's length in ms if one was under way, else undefined. */
  recovered(): number | undefined;
}

export function createRedisOutage(redisUrl: string, now: () => number = Date.now): RedisOutage {
  let host = '';
  let port = '6379';
  try {
    const url = new URL(redisUrl);
    host = url.hostname;
    port = url.port || '6379';
  } catch {
    // An unparsable URL fails at start-up with its own sentence.
  }
  let since: number | undefined;
  return {
    isConnectionError(error) {
      if (!error || typeof error !== 'object') return false;
      const { message = '', code, name } = error as { message?: string; code?: string; name?: string };
      if (name === 'MaxRetriesPerRequestError' || message === 'Connection is closed.') return true;
      if (!code || !CONNECTION_CODES.has(code)) return false;
      return (host !== '' && message.includes(host)) || message.endsWith(`:${port}`);
    },
    failed() {
      if (since !== undefined) return false;
      since = now();
      return true;
    },
    recovered() {
      if (since === undefined) return undefined;
      const lasted = now() - since;
      since = undefined;
      return lasted;
    },
  };
}
