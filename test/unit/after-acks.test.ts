import { describe, expect, it } from 'vitest';
import { createAfterAcks } from '../../src/slack/after-acks.js';

const nextTurns = (n: number) => new Promise<void>((resolve) => {
  const step = (left: number) => (left === 0 ? resolve() : setImmediate(() => step(left - 1)));
  step(n);
});

describe('after-acks: the work after an ack waits for a later turn of the event loop, one piece a turn', () => {
  it('runs nothing in the turn it was asked in, then one waiter a turn, in order', async () => {
    const afterAcks = createAfterAcks();
    const seen: string[] = [];
    for (const name of ['a', 'b', 'c']) void afterAcks.turn().then(() => seen.push(name));
    // Synchronous work and the microtasks of this turn (the rest of this request's handling, the next request's) come first.
    await Promise.resolve();
    expect(seen).toEqual([]);
    // An immediate queued now runs in the same check phase as the first waiter; the second waiter is a turn later.
    setImmediate(() => seen.push('same turn as a'));
    await nextTurns(1);
    expect(seen).toEqual(['a', 'same turn as a']);
    await nextTurns(2);
    expect(seen).toEqual(['a', 'same turn as a', 'b', 'c']);
  });

  it('starts again after it ran dry', async () => {
    const afterAcks = createAfterAcks();
    await afterAcks.turn();
    const later: string[] = [];
    await Promise.all([afterAcks.turn().then(() => later.push('x')), afterAcks.turn().then(() => later.push('y'))]);
    expect(later).toEqual(['x', 'y']);
  });
});
