import { describe, expect, it } from 'vitest';
import { runKillPoint } from '../chaos/kill-point.js';
import { KILL_POINTS } from '../chaos/kill-points.js';

/**
 * The short variant of `npm run chaos`'s kill points (the full run takes all twelve; upgrade-crash.test.ts covers
 * three more): the moments no other test covers — right after UpdateClusterVersion returned but before the job saved
 * its id, and right after a step ended but before its end was queued for the thread. The worker SIGKILLed there is
 * replaced; the update is adopted, not issued again; the upgrade completes; no post is lost or doubled, and every
 * step message ends finished.
 */
const SHORT = ['UpdateClusterVersion returned, id not saved', 'step ended, its end not yet in the thread'];

describe('kill points (short)', { timeout: 170_000 }, () => {
  for (const point of KILL_POINTS.filter((p) => SHORT.includes(p.name))) {
    it(point.name, async () => {
      const figures = await runKillPoint(point);
      expect(figures.error).toBeUndefined();
      expect(figures).toMatchObject({ completed: true, repeatedCalls: [], duplicatedPosts: [], lostPosts: [] });
    });
  }
});
