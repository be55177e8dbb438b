import { describe, expect, it } from 'vitest';
import { until } from '../support/until.js';

describe("the test kit's until", () => {
  it('resolves with the first truthy value the check returns, sync or async', async () => {
    let calls = 0;
    expect(await until(() => ++calls >= 3 && `after ${calls}`, 'three calls', { intervalMs: 1 })).toBe('after 3');
    expect(await until(async () => [1, 2], 'a list')).toEqual([1, 2]);
  });

  it('fails after its timeout with a sentence saying what it waited for, read when it gives up', async () => {
    let state = 'queued';
    const waiting = until(() => false, () => `the job to finish; it is ${state}`, { timeoutMs: 30, intervalMs: 5 });
    state = 'running';
    await expect(waiting).rejects.toThrow('timed out after 30 ms waiting for the job to finish; it is running');
    await expect(until(() => 0, 'a count', 20)).rejects.toThrow('timed out after 20 ms waiting for a count');
  });
});
