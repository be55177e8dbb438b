import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../src/sim/slack/web-api/rate-limits.js';

/**
 * The fake Slack's buckets (Tier 3: 50 chat.update a minute in the workspace, after a burst of 50) on a clock the
 * test moves. At `speed` 60 (a bot whose upgrades run on a simulated clock 60 times faster than real time) they
 * refill 60 times faster: what Slack allows per real minute, per simulated minute.
 */
function limiter(speed?: number) {
  let t = 0;
  const limits = createRateLimiter({ mode: 'on', now: () => t, ...(speed !== undefined ? { speed } : {}) });
  const update = () => limits.take('chat.update', { channel: 'C0OPS' });
  return { update, wait: (ms: number) => void (t += ms) };
}

describe("the fake Slack's rate-limit speed", () => {
  it('at real speed refuses the 51st chat.update of a burst and takes the next one a little over a second later', () => {
    const slack = limiter();
    for (let i = 0; i < 50; i++) expect(slack.update()).toBeUndefined();
    expect(slack.update()).toEqual({ retryAfter: 2 });
    slack.wait(1_000);
    expect(slack.update()).toEqual({ retryAfter: 1 });
    slack.wait(300);
    expect(slack.update()).toBeUndefined();
  });

  it('at speed 60 refills a call every 20 ms, and still refuses a burst past the bucket', () => {
    const slack = limiter(60);
    for (let i = 0; i < 50; i++) expect(slack.update()).toBeUndefined();
    expect(slack.update()).toEqual({ retryAfter: 1 });
    slack.wait(20);
    expect(slack.update()).toBeUndefined();
    expect(slack.update()).toEqual({ retryAfter: 1 });
    slack.wait(60_000);
    for (let i = 0; i < 50; i++) expect(slack.update()).toBeUndefined();
    expect(slack.update()).toEqual({ retryAfter: 1 });
  });

  it('refuses a speed below 1 with a sentence', () => {
    expect(() => createRateLimiter({ mode: 'on', speed: 0.5 })).toThrow("the fake Slack's rate-limit speed must be a number ≥ 1, got 0.5");
  });
});
