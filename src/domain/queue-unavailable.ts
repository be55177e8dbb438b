/**
 * Whether an error means Redis (the job queue and its records) could not be reached. The control side's connection
 * fails fast instead of queueing commands while Redis is down (see create-upgrade-engine.ts), and ioredis then says
 * so in one of these ways; BullMQ passes them through, sometimes as the cause of its own error.
 */
const REDIS_DOWN = [/Stream isn't writeable/i, /Connection is closed/i, /max retries per request/i, /ECONNREFUSED/, /ECONNRESET/, /connect ETIMEDOUT/];

export function isQueueUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current.name === 'MaxRetriesPerRequestError' || REDIS_DOWN.some((pattern) => pattern.test(current.message))) return true;
  }
  return false;
}

export const QUEUE_UNAVAILABLE_SENTENCE =
  'The job queue (Redis) is unavailable, so nothing was started or changed; try again once it is back. The details are in the bot\'s log.';
