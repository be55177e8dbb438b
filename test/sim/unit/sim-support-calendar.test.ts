import { afterEach, describe, expect, it } from 'vitest';
import { createWorld } from '../../../src/sim/aws/create-world.js';
import { wireClusterVersion } from '../../../src/sim/aws/eks/eks-wire.js';
import type { SimWorld } from '../../../src/sim/aws/world-types.js';
import { loadScenario } from '../../../src/sim/scenario/load-scenario.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';
import { calendarAsOfFor } from '../../../src/sim/twin/start-twin.js';

/**
 * The shifted support calendar (scenario `calendarAsOf`): EKS's support dates stay calendar days whatever time of
 * day the simulator starts, and a twin's calendar shows the dates the cluster it copies showed, also when its clock
 * is seconds or hours off the reading (a simulator running fast, the bot on another clock).
 */
const DAY = 86_400_000;
const worlds: SimWorld[] = [];
afterEach(() => worlds.splice(0).forEach((w) => w.stop()));

async function startedAt(at: number, calendarAsOf: string): Promise<SimWorld> {
  const world = await createWorld(loadScenario({ ...loadScenario('workshop'), calendarAsOf }), { clock: createManualClock(at) });
  worlds.push(world);
  return world;
}

/** DescribeClusterVersions' support dates of 1.25, in epoch ms. */
function datesOf(world: SimWorld): { standard: number; extended: number } {
  const wire = wireClusterVersion(world, '1.25', false) as { endOfStandardSupportDate: number; endOfExtendedSupportDate: number };
  return { standard: wire.endOfStandardSupportDate * 1000, extended: wire.endOfExtendedSupportDate * 1000 };
}

describe('the shifted support calendar', () => {
  it('keeps support dates at midnight UTC when the simulator starts in the evening', async () => {
    const evening = Date.UTC(2026, 11, 2, 19, 31, 7);
    const { standard, extended } = datesOf(await startedAt(evening, '2025-03-25'));
    expect(new Date(standard).toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect(new Date(extended).toISOString()).toMatch(/T00:00:00\.000Z$/);
    // 1.25's extended support ended 2025-05-01, 37 days after 2025-03-25: 37 days after the simulator's start day.
    expect(new Date(extended).toISOString().slice(0, 10)).toBe('2027-01-08');
  });

  for (const [label, offset] of [
    ['3 s before the reading', -3_000],
    ['3 s after it', 3_000],
    ['6 h after it', 6 * 3600_000],
  ] as const) {
    it(`gives a twin started ${label} the dates the cluster showed`, async () => {
      const original = await startedAt(Date.UTC(2026, 11, 2, 19, 31, 7), '2025-03-25');
      const readAt = Date.UTC(2026, 11, 2, 19, 31, 9);
      const seen = datesOf(original);
      const twin = await startedAt(readAt + offset, calendarAsOfFor('1.25', seen.standard, readAt)!);
      expect(datesOf(twin)).toEqual(seen);
    });
  }

  it('moves a twin replayed three days later by three days, so its days left are those seen', async () => {
    const original = await startedAt(Date.UTC(2026, 11, 2, 19, 31, 7), '2025-03-25');
    const readAt = Date.UTC(2026, 11, 2, 19, 31, 9);
    const seen = datesOf(original);
    const twin = await startedAt(readAt + 3 * DAY, calendarAsOfFor('1.25', seen.standard, readAt)!);
    expect(datesOf(twin)).toEqual({ standard: seen.standard + 3 * DAY, extended: seen.extended + 3 * DAY });
  });
});
