import { describe, expect, it } from 'vitest';
import { runBurst } from '../support/burst.js';

/**
 * Issue 31 item 3, short form: two web processes and three worker processes on one queue take 20 upgrades on the
 * `fleet` scenario at once, and one worker is SIGKILLed while control planes update. Every job runs once (the
 * simulator counts one UpdateClusterVersion per cluster), every upgrade ends at its target with one status card and
 * each step's message once, finished. The long form (two web and four worker processes, 200 upgrades) is P9 in `npm run bench`.
 */
describe('a burst shared by several workers, one killed mid-burst', () => {
  it('runs each of 20 upgrades once and loses nothing', async () => {
    const figures = await runBurst({ upgrades: 20, webs: 2, workers: 3, timeoutMs: 240_000 });
    expect(figures.killedAt).toBeDefined();
    expect(figures.notOnce, 'clusters whose UpdateClusterVersion was not accepted exactly once').toEqual([]);
    expect(figures.repeatedCalls).toEqual([]);
    expect(figures.doubled).toEqual([]);
    expect(figures.unfinished).toEqual([]);
    expect(figures.succeeded).toBe(20);
  }, 300_000);
});
