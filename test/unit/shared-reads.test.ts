import { describe, expect, it } from 'vitest';
import { createSharedReads } from '../../src/cluster-reader/shared-reads.js';

/** A read the test finishes by hand: what it answers is the number of the read (1, 2, …). */
function controlledReads() {
  const pending: Array<{ finish: () => void; fail: (error: Error) => void }> = [];
  let started = 0;
  const read = () => {
    const number = ++started;
    return new Promise<number>((resolve, reject) => pending.push({ finish: () => resolve(number), fail: reject }));
  };
  return { read, pending, started: () => started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('shared reads', () => {
  it('never answers a caller with a read that was under way when it asked', async () => {
    const shared = createSharedReads();
    const reads = controlledReads();
    const first = shared.share('status|card|prod', reads.read);
    await tick();
    expect(reads.started()).toBe(1);
    const second = shared.share('status|card|prod', reads.read);
    await tick();
    // The second caller waits: the read under way may have passed what it asks about.
    expect(reads.started()).toBe(1);
    reads.pending[0].finish();
    expect(await first).toBe(1);
    await tick();
    expect(reads.started()).toBe(2);
    reads.pending[1].finish();
    expect(await second).toBe(2);
  });

  it('gives every caller that asked during one read the same next read', async () => {
    const shared = createSharedReads();
    const reads = controlledReads();
    const first = shared.share('k', reads.read);
    const waiting = Array.from({ length: 50 }, () => shared.share('k', reads.read));
    await tick();
    reads.pending[0].finish();
    await first;
    await tick();
    reads.pending[1].finish();
    expect(await Promise.all(waiting)).toEqual(Array(50).fill(2));
    expect(reads.started()).toBe(2);
  });

  it('reads afresh for a caller who asks after the reads have settled: nothing is kept', async () => {
    const shared = createSharedReads();
    const reads = controlledReads();
    const first = shared.share('k', reads.read);
    await tick();
    reads.pending[0].finish();
    await first;
    const later = shared.share('k', reads.read);
    await tick();
    expect(reads.started()).toBe(2);
    reads.pending[1].finish();
    expect(await later).toBe(2);
  });

  it('shares a failure with the callers of that read only', async () => {
    const shared = createSharedReads();
    const reads = controlledReads();
    const first = shared.share('k', reads.read);
    const joined = [shared.share('k', reads.read), shared.share('k', reads.read)];
    await tick();
    reads.pending[0].fail(new Error('DescribeCluster for prod failed: throttled'));
    await expect(first).rejects.toThrow('throttled');
    await tick();
    reads.pending[1].finish();
    expect(await Promise.all(joined)).toEqual([2, 2]);
  });

  it('keeps keys apart', async () => {
    const shared = createSharedReads();
    const reads = controlledReads();
    const prod = shared.share('status|card|prod', reads.read);
    const staging = shared.share('status|card|staging', reads.read);
    await tick();
    expect(reads.started()).toBe(2);
    reads.pending[1].finish();
    reads.pending[0].finish();
    expect([await prod, await staging]).toEqual([1, 2]);
  });
});
