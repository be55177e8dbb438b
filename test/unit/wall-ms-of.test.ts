import { describe, expect, it } from 'vitest';
import { systemClock, wallMsOf } from '../../src/ports/clock.js';
import { createSimClock } from '@eks-upgrade-bot/sim';

describe('wallMsOf: a delay on the bot\'s clock, in the wall time BullMQ parks a job for', () => {
  it('is the delay itself on real time', () => {
    expect(wallMsOf(systemClock, 8_000)).toBe(8_000);
  });
  it('is the delay divided by the simulator\'s speed on its clock', () => {
    expect(wallMsOf(createSimClock(600), 60_000)).toBe(100);
  });
});
