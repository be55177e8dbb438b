import { afterEach, describe, expect, it } from 'vitest';
import { createSimClock, type SimClock } from '../../../src/sim/sim-clock.js';

/**
 * A twin's clock (loopGapMs) does not count real time in which its event loop was held up: a rehearsal on a busy
 * worker must not see its world leap ten simulated minutes for every second the CPU was elsewhere.
 */
const clocks: SimClock[] = [];
afterEach(() => clocks.splice(0).forEach((clock) => clock.stop?.()));

function holdLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('sim clock with loopGapMs', () => {
  it('counts at most loopGapMs of a stretch in which the loop could not run', () => {
    const watched = createSimClock(600, 0, { loopGapMs: 25 });
    const plain = createSimClock(600, 0);
    clocks.push(watched, plain);
    const [watchedBefore, plainBefore] = [watched.now(), plain.now()];
    holdLoop(300);
    expect(watched.now() - watchedBefore).toBe(25 * 600);
    expect(plain.now() - plainBefore).toBeGreaterThanOrEqual(300 * 600);
  });

  it('never runs backwards, and its timers still fire on simulated time', async () => {
    const clock = createSimClock(600, 0, { loopGapMs: 25 });
    clocks.push(clock);
    const readings: number[] = [];
    for (let i = 0; i < 5; i++) {
      readings.push(clock.now());
      holdLoop(40);
    }
    readings.push(clock.now());
    expect(readings).toEqual([...readings].sort((a, b) => a - b));
    const from = clock.now();
    await new Promise<void>((resolve) => clock.after(60_000, resolve));
    expect(clock.now() - from).toBeGreaterThanOrEqual(60_000);
  });

  it('keeps simulated time continuous across a speed change after a hold-up', () => {
    const clock = createSimClock(600, 0, { loopGapMs: 25 });
    clocks.push(clock);
    const before = clock.now();
    holdLoop(200);
    clock.setSpeed!(1);
    const after = clock.now();
    expect(after - before).toBe(25 * 600);
    holdLoop(10);
    expect(clock.now() - after).toBeLessThan(25 + 10);
  });
});
