/**
 * core/v1 Events as client-go's event recorder writes them: `<object>.<16 hex>` names in the object's namespace
 * (cluster-scoped objects: default), a repeat of the same reason and message bumps count and lastTimestamp
 * instead of adding an event, and events expire after an hour (--event-ttl) or beyond a cap.
 */

import { isoSeconds } from '../iso-seconds.js';
import { randomHex } from '../objects/kube-names.js';
import type { SimKubeStore, SimKubeStoreImpl } from '../kube-store.js';

const EVENT_LIMIT = 1000;
const EVENT_TTL_MS = 60 * 60 * 1000;

export function recordEvent(store: SimKubeStoreImpl, input: Parameters<SimKubeStore['recordEvent']>[0]): void {
  const now = isoSeconds(store.clock.now());
  const namespace = input.namespace ?? input.involvedObject.namespace ?? 'default';
  const type = input.type ?? 'Normal';
  const component = input.component ?? 'default-scheduler';
  const same = store
    .peek('events')
    .find(
      (e) =>
        e.metadata.namespace === namespace &&
        e.reason === input.reason &&
        e.message === input.message &&
        e.type === type &&
        (e.source as any)?.component === component &&
        (e.involvedObject as any)?.kind === input.involvedObject.kind &&
        (e.involvedObject as any)?.name === input.involvedObject.name,
    );
  if (same) {
    store.mutate('events', same.metadata.name, namespace, (e) => {
      e.count = ((e.count as number) ?? 1) + 1;
      e.lastTimestamp = now;
    });
    return;
  }
  const core = input.involvedObject.kind === 'Pod' || input.involvedObject.kind === 'Node';
  store.create('events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${input.involvedObject.name}.${randomHex(store.random, 16)}`, namespace },
    involvedObject: { ...(core ? { apiVersion: 'v1' } : {}), ...input.involvedObject },
    reason: input.reason,
    message: input.message,
    source: { component },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    type,
    eventTime: null,
    reportingComponent: component,
    reportingInstance: '',
  });
  pruneEvents(store);
}

/** When pruneEvents last swept for expired events, per store: under the cap, a sweep a simulated minute is enough. */
const lastSweep = new WeakMap<SimKubeStoreImpl, number>();

function pruneEvents(store: SimKubeStoreImpl): void {
  const events = store.peek('events');
  const now = store.clock.now();
  if (events.length <= EVENT_LIMIT && now - (lastSweep.get(store) ?? -Infinity) < 60_000) return;
  lastSweep.set(store, now);
  const cutoff = now - EVENT_TTL_MS;
  const oldestFirst = events.map((event) => ({ event, at: Date.parse(String(event.lastTimestamp)) })).sort((a, b) => a.at - b.at);
  // Over the cap, down to a tenth below it: a busy cluster records an event per pod, and sorting them all again for
  // every new one was a large share of the simulator's CPU at 500 nodes.
  let excess = oldestFirst.length > EVENT_LIMIT ? oldestFirst.length - EVENT_LIMIT + EVENT_LIMIT / 10 : 0;
  for (const { event, at } of oldestFirst) {
    if (excess <= 0 && at >= cutoff) break;
    store.delete('events', event.metadata.name, event.metadata.namespace);
    excess--;
  }
}
