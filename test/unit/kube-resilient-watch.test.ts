import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import type { KubeList, KubeObject } from '../../src/ports/kube-port.js';
import { startResilientWatch } from '../../src/kube/resilient-watch.js';
import { until } from '../support/until.js';

/**
 * The reconnect logic on its own, with a scripted stand-in for client-node's Watch: each call to watch() takes
 * the next scripted stream, which emits events and then ends the way a real connection ends.
 */
type Stream = { events?: Array<[string, any]>; end: null | Error | 'hang' };

function scriptedWatcher(streams: Stream[]) {
  const calls: Array<Record<string, string | undefined>> = [];
  let aborts = 0;
  return {
    calls,
    aborts: () => aborts,
    async watch(_path: string, query: any, onEvent: (type: string, object: any) => void, done: (error: any) => void) {
      calls.push({ ...query });
      const stream = streams.shift() ?? { end: 'hang' };
      const controller = new AbortController();
      controller.signal.addEventListener('abort', () => {
        aborts++;
        done(Object.assign(new Error('The user aborted a request.'), { name: 'AbortError' }));
      });
      setImmediate(() => {
        for (const [type, object] of stream.events ?? []) onEvent(type, object);
        if (stream.end !== 'hang') done(stream.end);
      });
      return controller;
    },
  };
}

function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 0,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        sleeps.push(ms);
        if (signal?.aborted) return reject(new Error('aborted'));
        setImmediate(resolve);
      }),
  };
}

const node = (name: string, rv: string): KubeObject => ({ metadata: { name, resourceVersion: rv } });

function lists(...results: Array<KubeList | Error>) {
  let count = 0;
  const list = async () => {
    const next = results[Math.min(count++, results.length - 1)];
    if (next instanceof Error) throw next;
    return next;
  };
  return { list, count: () => count };
}

const toError = (operation: string, error: unknown) => new Error(`${operation} failed: ${(error as Error).message}`, { cause: error });

describe('startResilientWatch', () => {
  it('lists, then watches from the list resourceVersion and follows the versions it sees', async () => {
    const watcher = scriptedWatcher([
      { events: [['MODIFIED', node('a', '11')], ['BOOKMARK', { metadata: { resourceVersion: '15' } }]], end: null },
      { end: 'hang' },
    ]);
    const source = lists({ items: [node('a', '5'), node('b', '6')], resourceVersion: '10' });
    const events: string[] = [];
    const synced: string[][] = [];
    const handle = await startResilientWatch({
      description: 'watching nodes in cluster demo',
      path: '/api/v1/nodes',
      query: { labelSelector: 'role=web' },
      list: source.list,
      watcher,
      toError,
      handlers: { onEvent: (type, o) => events.push(`${type} ${o.metadata.name}`), onSynced: (items) => synced.push(items.map((i) => i.metadata.name)) },
      clock: recordingClock(),
    });
    expect(synced).toEqual([['a', 'b']]);
    await until(() => watcher.calls.length === 2, 'a second watch', { intervalMs: 1 });
    expect(watcher.calls[0]).toMatchObject({ resourceVersion: '10', labelSelector: 'role=web', allowWatchBookmarks: 'true' });
    // The stream ended cleanly after events: reconnect from the bookmark's version, no relist.
    expect(watcher.calls[1]).toMatchObject({ resourceVersion: '15' });
    expect(events).toEqual(['MODIFIED a']);
    expect(source.count()).toBe(1);
    handle.stop();
  });

  it('relists and reports the full set again after 410 Expired, inside the stream or as an HTTP answer', async () => {
    const watcher = scriptedWatcher([
      { events: [['ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (40)' }]], end: null },
      { end: Object.assign(new Error('Gone'), { statusCode: 410 }) },
      { end: 'hang' },
    ]);
    const source = lists(
      { items: [node('a', '5')], resourceVersion: '10' },
      { items: [node('a', '5'), node('c', '41')], resourceVersion: '42' },
      { items: [node('c', '41')], resourceVersion: '50' },
    );
    const synced: string[][] = [];
    const errors: Error[] = [];
    const handle = await startResilientWatch({
      description: 'watching nodes in cluster demo',
      path: '/api/v1/nodes',
      query: {},
      list: source.list,
      watcher,
      toError,
      handlers: { onEvent: () => {}, onSynced: (items) => synced.push(items.map((i) => i.metadata.name)), onError: (e) => errors.push(e) },
      clock: recordingClock(),
    });
    await until(() => watcher.calls.length === 3, 'a third watch', { intervalMs: 1 });
    expect(synced).toEqual([['a'], ['a', 'c'], ['c']]);
    expect(watcher.calls.map((c) => c.resourceVersion)).toEqual(['10', '42', '50']);
    expect(errors).toEqual([]); // an expiry is routine, not an error
    handle.stop();
  });

  it('backs off exponentially up to the cap while the apiserver keeps failing, and resets once healthy', async () => {
    const refused = () => ({ end: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    const watcher = scriptedWatcher([refused(), refused(), refused(), refused(), { events: [['ADDED', node('z', '20')]], end: null }, refused(), { end: 'hang' }]);
    const clock = recordingClock();
    const errors: string[] = [];
    const handle = await startResilientWatch({
      description: 'watching nodes in cluster demo',
      path: '/api/v1/nodes',
      query: {},
      list: lists({ items: [], resourceVersion: '1' }).list,
      watcher,
      toError,
      handlers: { onEvent: () => {}, onError: (e) => errors.push(e.message) },
      clock,
      backoff: { initialMs: 100, maxMs: 500 },
    });
    await until(() => watcher.calls.length === 7, 'the seventh watch', { intervalMs: 1 });
    expect(clock.sleeps).toEqual([100, 200, 400, 500, 100]);
    expect(errors).toHaveLength(5);
    expect(errors[0]).toBe('watching nodes in cluster demo failed: connect ECONNREFUSED 127.0.0.1:1');
    handle.stop();
  });

  it('treats a stream closed at once without events as a failure, so it never spins', async () => {
    const watcher = scriptedWatcher([{ end: null }, { end: null }, { end: 'hang' }]);
    const clock = recordingClock();
    const handle = await startResilientWatch({
      description: 'watching pods in cluster demo',
      path: '/api/v1/pods',
      query: {},
      list: lists({ items: [], resourceVersion: '1' }).list,
      watcher,
      toError,
      handlers: { onEvent: () => {} },
      clock,
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    await until(() => watcher.calls.length === 3, 'a third watch', { intervalMs: 1 });
    expect(clock.sleeps).toEqual([100, 200]);
    handle.stop();
  });

  it('rejects when the first list fails, so the caller sees a 403 at once', async () => {
    const watcher = scriptedWatcher([]);
    const start = startResilientWatch({
      description: 'watching nodes in cluster demo',
      path: '/api/v1/nodes',
      query: {},
      list: lists(new Error('listing nodes in cluster demo failed: 403 Forbidden')).list,
      watcher,
      toError,
      handlers: { onEvent: () => {} },
      clock: recordingClock(),
    });
    await expect(start).rejects.toThrow(/403 Forbidden/);
    expect(watcher.calls).toHaveLength(0);
  });

  it('stop() closes the open stream and no further connection is made', async () => {
    const watcher = scriptedWatcher([{ end: 'hang' }]);
    const events: string[] = [];
    const handle = await startResilientWatch({
      description: 'watching nodes in cluster demo',
      path: '/api/v1/nodes',
      query: {},
      list: lists({ items: [], resourceVersion: '1' }).list,
      watcher,
      toError,
      handlers: { onEvent: (type) => events.push(type) },
      clock: recordingClock(),
    });
    await until(() => watcher.calls.length === 1, 'the first watch', { intervalMs: 1 });
    handle.stop();
    await until(() => watcher.aborts() === 1, 'the open stream to be aborted', { intervalMs: 1 });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(watcher.calls).toHaveLength(1);
  });
});
