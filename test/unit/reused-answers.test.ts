import { describe, expect, it } from 'vitest';
import { reusedAnswers } from '../../src/domain/reused-answers.js';

/** The reuse rule on its own, with a clock the test moves: kept answers expire, refused answers and failures are not kept. */
describe('reusedAnswers', () => {
  it('hands a kept answer out until reuseMs has passed, then reads again', async () => {
    let now = 1_000;
    let reads = 0;
    const answers = reusedAnswers<number>({ reuseMs: 100, now: () => now });
    const read = async () => ++reads;
    expect(await answers('a', read)).toBe(1);
    now += 99;
    expect(await answers('a', read)).toBe(1);
    expect(await answers('b', read)).toBe(2);
    now += 1;
    expect(await answers('a', read)).toBe(3);
  });

  it('shares a read in flight, and forgets failures and answers keep refuses', async () => {
    let reads = 0;
    const answers = reusedAnswers<boolean>({ reuseMs: 60_000, now: () => 0, keep: (allowed) => allowed });
    const denied = async () => (reads++, false);
    expect(await Promise.all([answers('q', denied), answers('q', denied)])).toEqual([false, false]);
    expect(reads).toBe(1);
    expect(await answers('q', denied)).toBe(false);
    expect(reads).toBe(2);
    await expect(answers('r', async () => Promise.reject(new Error('apiserver down')))).rejects.toThrow('apiserver down');
    expect(await answers('r', async () => true)).toBe(true);
    expect(await answers('r', async () => false)).toBe(true);
  });
});
