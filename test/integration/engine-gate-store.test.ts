import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createClusterLock, type StartIntent } from '../../src/store/cluster-lock.js';
import { engineKeys } from '../../src/store/engine-keys.js';
import { createGateStore, type GateStore } from '../../src/store/gate-store.js';
import { createJobControlsStore } from '../../src/store/job-controls-store.js';
import { createTimelineLog } from '../../src/store/timeline-log.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { freshPrefix, redisUrl } from '../support/redis-url.js';

const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
afterAll(() => redis.quit());

function gate(revision: number, actions: GateModel['actions'] = ['continue', 'abort']): GateModel {
  return { jobId: 'job1', gateId: 'h1-control-plane', revision, title: 'Upgrade the control plane of demo to 1.31?', details: [], actions };
}

describe('gate store (Redis compare-and-set)', () => {
  let gates: GateStore;
  beforeEach(() => {
    gates = createGateStore(redis, engineKeys(freshPrefix('gates')));
  });

  it('accepts the first answer and reports later ones as already answered, with who and when', async () => {
    await gates.open(gate(1), 1000);
    const answers = await Promise.all([
      gates.answer('job1', 'h1-control-plane', 1, { action: 'continue', by: 'U0APP', at: 2000 }),
      gates.answer('job1', 'h1-control-plane', 1, { action: 'abort', by: 'U0OTHER', at: 2001 }),
    ]);
    const accepted = answers.filter((answer) => answer.outcome === 'accepted');
    expect(accepted).toHaveLength(1);
    const winner = answers[0].outcome === 'accepted' ? { by: 'U0APP', action: 'continue' } : { by: 'U0OTHER', action: 'abort' };
    const again = await gates.answer('job1', 'h1-control-plane', 1, { action: 'continue', by: 'U0APP', at: 3000 });
    expect(again).toMatchObject({ outcome: 'already-answered', by: winner.by, action: winner.action });
    expect((await gates.read('job1', 'h1-control-plane'))?.answer?.by).toBe(winner.by);
  });

  it('treats a click on an older revision, an unknown gate or an action the gate does not offer as stale', async () => {
    await gates.open(gate(1), 1000);
    await gates.open(gate(2), 1500);
    expect(await gates.answer('job1', 'h1-control-plane', 1, { action: 'continue', by: 'U0APP', at: 2000 })).toEqual({ outcome: 'stale' });
    expect(await gates.answer('job1', 'nope', 1, { action: 'continue', by: 'U0APP', at: 2000 })).toEqual({ outcome: 'stale' });
    expect(await gates.answer('job1', 'h1-control-plane', 2, { action: 'force', by: 'U0APP', at: 2000 })).toEqual({ outcome: 'stale' });
    expect(await gates.answer('job1', 'h1-control-plane', 2, { action: 'continue', by: 'U0APP', at: 2000 })).toEqual({ outcome: 'accepted' });
  });

  it('re-opening the same revision (a step re-run after a crash) keeps the answer it already got', async () => {
    expect(await gates.open(gate(1), 1000)).toBe(true);
    await gates.answer('job1', 'h1-control-plane', 1, { action: 'continue', by: 'U0APP', at: 2000 });
    expect(await gates.open(gate(1), 5000)).toBe(false);
    const record = await gates.read('job1', 'h1-control-plane');
    expect(record).toMatchObject({ state: 'answered', openedAt: 1000, answer: { action: 'continue', by: 'U0APP' } });
  });
});

describe('cluster lock', () => {
  const intent = (jobId: string): StartIntent => ({ jobId, cluster: 'demo', from: '1.30', to: '1.31', requestedBy: 'U0REQ', channel: 'C0DEMO', dryRun: false, at: 1 });

  it('lets one job hold a cluster, releases only for its owner, and hands a stale lock over once', async () => {
    const lock = createClusterLock(redis, engineKeys(freshPrefix('lock')));
    expect(await lock.acquire(intent('a'))).toBe('a');
    expect(await lock.acquire(intent('b'))).toBe('a');
    await lock.release('demo', 'b');
    expect(await lock.holder('demo')).toBe('a');
    const [first, second] = await Promise.all([lock.takeOver('a', intent('c')), lock.takeOver('a', intent('d'))]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const holder = await lock.holder('demo');
    expect(['c', 'd']).toContain(holder);
    expect((await lock.intent(holder!))?.requestedBy).toBe('U0REQ');
    await lock.release('demo', holder!);
    expect(await lock.holder('demo')).toBeUndefined();
  });
});

describe('job controls and timeline log', () => {
  it('counts a double Pause once and keeps the first Abort', async () => {
    const controls = createJobControlsStore(redis, engineKeys(freshPrefix('controls')));
    expect(await controls.pause('j', 'U1', 10)).toBe(true);
    expect(await controls.pause('j', 'U2', 11)).toBe(false);
    expect(await controls.read('j')).toMatchObject({ paused: true, pauseSeq: 1, pausedBy: 'U1' });
    expect(await controls.resume('j', 'U2', 12)).toBe(true);
    expect(await controls.resume('j', 'U2', 13)).toBe(false);
    expect(await controls.abort('j', 'U3', 14)).toBe(true);
    expect(await controls.abort('j', 'U4', 15)).toBe(false);
    expect(await controls.read('j')).toMatchObject({ paused: false, resumedBy: 'U2', abort: { by: 'U3', at: 14 } });
  });

  it('appends each key once, in order', async () => {
    const log = createTimelineLog(redis, engineKeys(freshPrefix('timeline')));
    const event = (text: string) => ({ kind: 'note' as const, at: 1, level: 'info' as const, text });
    expect(await log.append('j', 'k1', event('one'))).toBe(true);
    expect(await log.append('j', 'k2', event('two'))).toBe(true);
    expect(await log.append('j', 'k1', event('one again'))).toBe(false);
    expect((await log.read('j')).map((entry) => entry.key)).toEqual(['k1', 'k2']);
  });
});
