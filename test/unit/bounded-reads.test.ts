import { describe, expect, it } from 'vitest';
import { mapBoundedBy } from '../../src/cluster-reader/bounded.js';
import { throttleKeyOf } from '../../src/cluster-reader/collect-statuses.js';

/** A task that stays in flight until released, counting what is in flight per key and in all. */
function tracker() {
  const inFlight = new Map<string, number>();
  let total = 0;
  const peaks = { total: 0, byKey: new Map<string, number>() };
  const waiting: Array<() => void> = [];
  const run = async (key: string, value: string) => {
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    total++;
    peaks.total = Math.max(peaks.total, total);
    peaks.byKey.set(key, Math.max(peaks.byKey.get(key) ?? 0, inFlight.get(key)!));
    await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight.set(key, inFlight.get(key)! - 1);
    total--;
    return value;
  };
  /** Lets every task now in flight finish, one turn at a time, until none is left. */
  const drain = async (done: Promise<unknown>) => {
    let settled = false;
    void done.then(() => (settled = true));
    while (!settled) {
      waiting.splice(0).forEach((release) => release());
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { run, drain, peaks, inFlightNow: () => total };
}

describe('reads bounded per account and region', () => {
  it('keeps each key within its bound and all keys within the overall one, answers in input order', async () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ key: ['a us-west-2', 'a us-east-1', 'b us-west-2'][i % 3], id: `c${i}` }));
    const t = tracker();
    const done = mapBoundedBy(items, (item) => item.key, { perKey: 3, overall: 7 }, (item) => t.run(item.key, item.id));
    await new Promise((resolve) => setImmediate(resolve));
    // Three keys of 3 would be 9 at once: the overall bound holds it to 7, and every key has started.
    expect(t.inFlightNow()).toBe(7);
    await t.drain(done);
    expect(await done).toEqual(items.map((item) => item.id));
    expect(t.peaks.total).toBe(7);
    expect([...t.peaks.byKey.values()].every((peak) => peak <= 3)).toBe(true);
    expect(t.peaks.byKey.size).toBe(3);
  });

  it('reads one key no faster than its own bound however high the overall one is', async () => {
    const items = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const t = tracker();
    const done = mapBoundedBy(items, () => 'one', { perKey: 4, overall: 128 }, (id) => t.run('one', id));
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.inFlightNow()).toBe(4);
    await t.drain(done);
    expect(await done).toEqual(items);
  });

  it('counts a cluster against its role\'s account and region, or the bot\'s own credentials', () => {
    expect(throttleKeyOf({ name: 'a', region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/eks-upgrade' })).toBe('123456789012 eu-west-1');
    expect(throttleKeyOf({ name: 'b', region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/other-role' })).toBe('123456789012 eu-west-1');
    expect(throttleKeyOf({ name: 'c', region: 'cn-north-1', roleArn: 'arn:aws-cn:iam::210987654321:role/x' })).toBe('210987654321 cn-north-1');
    expect(throttleKeyOf({ name: 'd', region: 'us-east-1' })).toBe('own credentials us-east-1');
  });
});
