/**
 * Slack misbehaving on purpose, so tests can show that 429s and 500s delay the thread but never the upgrade.
 * Method names are Web API methods ('chat.postMessage'), '*' for all of them, 'response_url' for response_url
 * POSTs and 'files.upload' for the upload POST of filesUploadV2.
 */

export type FaultSpec =
  /** HTTP 429 with `Retry-After: retryAfter` seconds (default 1); web-api pauses its queue and retries. */
  | { status: 429; retryAfter?: number }
  /**
   * HTTP 5xx. With `applyFirst` the call takes effect before the error is returned, like a post that reached Slack
   * whose answer was lost: a client that retries it posts a duplicate.
   */
  | { status: 500 | 502 | 503 | 504; applyFirst?: boolean }
  /** HTTP 200 with `{ ok: false, error }` (a platform error; web-api does not retry these). */
  | { error: string }
  /**
   * The connection drops before any answer (web-api: a request error). With `applyFirst` the call took effect
   * first, like a post that reached Slack while the network failed on the way back.
   */
  | { disconnect: true; applyFirst?: boolean };

export interface OutageSpec {
  /** Methods affected; all when omitted. */
  methods?: string[];
  status: 429 | 500 | 502 | 503 | 504;
  /** For 429: Retry-After seconds (default 1). */
  retryAfter?: number;
  /** Clock time (ms) at which the outage ends; lasts until clearOutage() when omitted. */
  until?: number;
}

export type FaultInjector = ReturnType<typeof createFaultInjector>;

export function createFaultInjector(opts: { clock: () => number }) {
  const queued: Array<{ method: string; fault: FaultSpec; remaining: number }> = [];
  let outage: OutageSpec | undefined;

  const matches = (pattern: string, method: string) => pattern === '*' || pattern === method;

  return {
    /** The next `count` calls of `method` fail with `fault`. */
    failNext(method: string, fault: FaultSpec, count = 1): void {
      if (count > 0) queued.push({ method, fault, remaining: count });
    },

    setOutage(spec: OutageSpec): void {
      outage = spec;
    },

    clearOutage(): void {
      outage = undefined;
    },

    /** The fault to apply to this call of `method`, consuming one queued failure; undefined to answer normally. */
    take(method: string): FaultSpec | undefined {
      const index = queued.findIndex((entry) => matches(entry.method, method));
      if (index >= 0) {
        const entry = queued[index];
        entry.remaining -= 1;
        if (entry.remaining <= 0) queued.splice(index, 1);
        return entry.fault;
      }
      if (!outage) return undefined;
      if (outage.until !== undefined && opts.clock() >= outage.until) {
        outage = undefined;
        return undefined;
      }
      if (outage.methods && !outage.methods.some((pattern) => matches(pattern, method))) return undefined;
      return outage.status === 429 ? { status: 429, retryAfter: outage.retryAfter } : { status: outage.status };
    },
  };
}
