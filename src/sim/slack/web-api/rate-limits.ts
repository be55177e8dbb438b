/**
 * Slack's rate limits for the methods a ChatOps bot calls in bursts, so a bot that works against the fake also
 * copes with real Slack's HTTP 429 + `Retry-After` (seconds), and no figure can be met by spamming edits.
 *
 * https://docs.slack.dev/apis/web-api/rate-limits: limits apply "per API method per workspace/team per app";
 * Tier 3 methods allow "50+ per minute" with "sporadic bursts"; chat.postMessage "generally allows posting one
 * message per second per channel", with "short bursts >1 allowed". The burst sizes are not published; the fake
 * grants a burst of 10 posts per channel and 50 calls per Tier 3 method, then refills at the documented rate.
 * Tiers per method: https://docs.slack.dev/reference/methods/chat.update (Tier 3),
 * https://docs.slack.dev/reference/methods/chat.postMessage (Special), reactions.add (Tier 3),
 * chat.postEphemeral (Tier 4), views.open / views.update (Tier 4).
 *
 * Buckets run on the real clock, not Slack's simulated one: the bot's WebClient waits `Retry-After` real seconds.
 * `speed` (default 1) is for a bot whose upgrades run on a simulated clock that many times faster than real time
 * (a benchmark of 50 upgrades at 60×): the buckets refill `speed` times faster, so the bot may make, per simulated
 * minute, the calls Slack allows it per real minute in production, and no more.
 */

export type RateLimitMode = 'on' | 'off';

interface Rule {
  /** Calls allowed at once. */
  burst: number;
  /** Calls regained per second. */
  perSecond: number;
  /** The bucket a call draws from: per method, or per method and channel. */
  key(method: string, args: Record<string, unknown>): string;
}

const perMethod = (method: string) => method;
const tier = (perMinute: number, burst = perMinute): Omit<Rule, 'key'> => ({ burst, perSecond: perMinute / 60 });

const RULES: Record<string, Rule> = {
  'chat.postMessage': { burst: 10, perSecond: 1, key: (method, args) => `${method}:${String(args.channel ?? '')}` },
  'chat.update': { ...tier(50), key: perMethod },
  'chat.delete': { ...tier(50), key: perMethod },
  'reactions.add': { ...tier(50), key: perMethod },
  'chat.postEphemeral': { ...tier(100), key: perMethod },
  'views.open': { ...tier(100), key: perMethod },
  'views.update': { ...tier(100), key: perMethod },
};

export interface RateLimiter {
  /** Takes one call from its bucket; the seconds to wait (Retry-After) when the bucket is empty. */
  take(method: string, args: Record<string, unknown>): { retryAfter: number } | undefined;
}

export function createRateLimiter(opts: { mode: RateLimitMode; now?: () => number; speed?: number }): RateLimiter {
  const speed = opts.speed ?? 1;
  if (!(speed >= 1) || !Number.isFinite(speed)) throw new Error(`the fake Slack's rate-limit speed must be a number ≥ 1, got ${opts.speed}`);
  const now = opts.now ?? (() => performance.now());
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(method, args) {
      const rule = RULES[method];
      if (opts.mode === 'off' || !rule) return undefined;
      const key = rule.key(method, args);
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: rule.burst, at: t };
      bucket.tokens = Math.min(rule.burst, bucket.tokens + ((t - bucket.at) / 1000) * rule.perSecond * speed);
      bucket.at = t;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return undefined;
      }
      return { retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / (rule.perSecond * speed))) };
    },
  };
}
