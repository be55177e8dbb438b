/**
 * Whether a channel's posts kept to a token bucket: at most `burst` at once, then one per `intervalMs` (Slack's
 * chat.postMessage: "1 per second", "short bursts >1 allowed"). Returns the posts that found the bucket empty, with
 * `slackMs` spared for timer granularity and a call's transit; an empty list means every post had its token.
 */
export function postsPastBucket(times: readonly number[], burst: number, intervalMs: number, slackMs = 10): Array<{ index: number; at: number; tokens: number }> {
  const past: Array<{ index: number; at: number; tokens: number }> = [];
  let tokens = burst;
  let last = times[0] ?? 0;
  times.forEach((at, index) => {
    tokens = Math.min(burst, tokens + (at - last + slackMs) / intervalMs);
    last = at;
    if (tokens < 1) past.push({ index, at, tokens: Math.round(tokens * 100) / 100 });
    tokens -= 1;
  });
  return past;
}
