import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gatherWindow, HOLD_MS, QUIET_MS } from '../../jobs/slash-commands/slash-command-queue.js';

/**
 * When the web process hands gathered slash commands to the workers: once they stop coming for QUIET_MS, or HOLD_MS
 * after the first. Fake timers and a fake clock, so the times are exact whatever the machine's load.
 */
describe('gatherWindow', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function window() {
    const ends: number[] = [];
    const started = Date.now();
    const gather = gatherWindow(() => ends.push(Date.now() - started), { now: () => Date.now() });
    return { gather, ends };
  }

  it('hands a lone command over QUIET_MS after it', () => {
    const { gather, ends } = window();
    gather.arrived();
    vi.advanceTimersByTime(QUIET_MS - 1);
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ends).toEqual([QUIET_MS]);
  });

  it('holds a burst until it pauses, and hands it over once', () => {
    const { gather, ends } = window();
    const gap = QUIET_MS / 2;
    for (let i = 0; i < 5; i++) {
      gather.arrived();
      vi.advanceTimersByTime(gap);
    }
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(QUIET_MS);
    expect(ends).toEqual([4 * gap + QUIET_MS]);
  });

  it('hands a burst that does not pause over HOLD_MS after its first command', () => {
    const { gather, ends } = window();
    for (let t = 0; t < 3 * HOLD_MS; t += QUIET_MS / 4) {
      gather.arrived();
      vi.advanceTimersByTime(QUIET_MS / 4);
    }
    // The window that opened after the first ended at HOLD_MS; the commands after it opened the next ones.
    expect(ends[0]).toBe(HOLD_MS);
    expect(ends.length).toBeGreaterThanOrEqual(2);
    expect(ends.slice(1).every((at, i) => at - ends[i] <= HOLD_MS + QUIET_MS / 4)).toBe(true);
  });

  it('cancel closes an open window without handing it over, and says whether one was open', () => {
    const { gather, ends } = window();
    expect(gather.cancel()).toBe(false);
    gather.arrived();
    expect(gather.cancel()).toBe(true);
    vi.advanceTimersByTime(10 * HOLD_MS);
    expect(ends).toEqual([]);
  });
});
