/**
 * The bridge between BullMQ's job schedulers, which wait in wall time (a delayed job is due at a Date.now()
 * instant), and the bot's Clock, on whose calendar a digest schedule like "0 9 * * MON" (Europe/Berlin) is meant.
 *
 * BullMQ asks a RepeatStrategy for the next run after a wall instant `millis`. This one translates `millis` onto the
 * Clock (clock now + (millis − wall now) × speed), finds the next cron time there with croner in the schedule's
 * time zone, and translates that back to the wall instant at which the Clock will show it. With the system clock
 * (speed 1, no offset) it is the identity on both sides, i.e. exactly BullMQ's own cron scheduling. With the
 * simulator's clock at speed 600 a weekly tick is one simulated week, about 17 real minutes, and a test that starts
 * the simulated calendar a minute before Monday 09:00 Berlin sees the tick 100 ms later. BullMQ still does the rest
 * (one delayed job per tick with a deterministic id, created by whichever worker took the previous tick), so several
 * workers post once per tick.
 *
 * A tick is taken a little late, never early: the translated instant is moved `GUARD_REAL_MS` of real time forward
 * before the next run is looked up, so sampling jitter between the two clocks cannot make the tick just taken come
 * round again. The clock must keep its speed between ticks; a jump of the simulated clock is seen at the next tick.
 */

import { Cron } from 'croner';
import type { RepeatOptions } from 'bullmq';
import { speedOf, type Clock } from '../../src/ports/clock.js';

const GUARD_REAL_MS = 50;

export function clockRepeatStrategy(clock: Clock): (millis: number, opts: RepeatOptions) => number | undefined {
  return (millis, opts) => {
    if (!opts.pattern) return undefined;
    const speed = speedOf(clock);
    const wallNow = Date.now();
    const clockNow = clock.now();
    const realTime = speed === 1 && Math.abs(clockNow - wallNow) < 1_000;
    const from = realTime ? millis : clockNow + (millis - wallNow) * speed + (millis <= wallNow ? GUARD_REAL_MS * speed : 0);
    const next = new Cron(opts.pattern, { timezone: opts.tz ?? 'UTC', paused: true }).nextRun(new Date(from));
    if (!next) return undefined;
    return realTime ? next.getTime() : Math.ceil(wallNow + (next.getTime() - clockNow) / speed);
  };
}
