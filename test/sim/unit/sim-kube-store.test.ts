import { describe, expect, it } from 'vitest';
import { createSimKubeStore, SimKubeError, type StoreEvent } from '../../../src/sim/kube/index.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';

function newStore() {
  const clock = createManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
  return { clock, store: createSimKubeStore({ clusterName: 't', gitVersion: 'v1.30.14-eks-f69f56f', clock }) };
}

describe('sim kube store', () => {
  it('stamps uid, resourceVersion, creationTimestamp (sim clock) and generation, and refuses duplicates with 409', () => {
    const { store } = newStore();
    const created = store.create('deployments', { metadata: { name: 'orders', namespace: 'orders' }, spec: { selector: {}, template: {} } });
    expect(created).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { creationTimestamp: '2026-01-01T09:00:00Z', generation: 1 }, spec: { replicas: 1 } });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBe(Number(store.resourceVersion()));
    expect(store.get('namespaces', 'orders')).toBeDefined();
    expect(() => store.create('deployments', { metadata: { name: 'orders', namespace: 'orders' } })).toThrow(SimKubeError);
    try {
      store.create('deployments', { metadata: { name: 'orders', namespace: 'orders' } });
    } catch (error) {
      expect(error).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'deployments.apps "orders" already exists' });
    }
  });

  it('hands out copies: changing a returned object does not change the store', () => {
    const { store } = newStore();
    store.create('nodes', { metadata: { name: 'n1' }, spec: {} });
    const copy = store.get('nodes', 'n1')!;
    copy.spec.unschedulable = true;
    expect(store.get('nodes', 'n1')!.spec.unschedulable).toBeUndefined();
  });

  it('skips no-op updates, bumps generation only on spec changes', () => {
    const { store } = newStore();
    const d = store.create('deployments', { metadata: { name: 'orders', namespace: 'orders' }, spec: { replicas: 1, selector: {}, template: {} } });
    const same = store.update('deployments', store.get('deployments', 'orders', 'orders')!);
    expect(same.metadata.resourceVersion).toBe(d.metadata.resourceVersion);
    const labelled = store.mutate('deployments', 'orders', 'orders', (o) => (o.metadata.labels = { a: 'b' }))!;
    expect(labelled.metadata.generation).toBe(1);
    const scaled = store.mutate('deployments', 'orders', 'orders', (o) => (o.spec.replicas = 2))!;
    expect(scaled.metadata.generation).toBe(2);
    expect(Number(scaled.metadata.resourceVersion)).toBeGreaterThan(Number(labelled.metadata.resourceVersion));
  });

  it('keeps an object with finalizers until the last one is removed', () => {
    const { store } = newStore();
    store.create('nodeclaims', { metadata: { name: 'default-x7k2p', finalizers: ['karpenter.sh/termination'] }, spec: {} });
    const marked = store.delete('nodeclaims', 'default-x7k2p')!;
    expect(marked.metadata.deletionTimestamp).toBe('2026-01-01T09:00:00Z');
    expect(store.get('nodeclaims', 'default-x7k2p')).toBeDefined();
    store.mutate('nodeclaims', 'default-x7k2p', undefined, (o) => (o.status = { nodeName: 'n' }));
    expect(store.get('nodeclaims', 'default-x7k2p')).toBeDefined();
    store.mutate('nodeclaims', 'default-x7k2p', undefined, (o) => (o.metadata.finalizers = []));
    expect(store.get('nodeclaims', 'default-x7k2p')).toBeUndefined();
  });

  it('notifies subscribers in order and replays history, reporting expired history after compaction', () => {
    const { store } = newStore();
    const seen: StoreEvent[] = [];
    const off = store.subscribe((e) => seen.push(e));
    const start = Number(store.resourceVersion());
    store.create('nodes', { metadata: { name: 'n1' } });
    store.mutate('nodes', 'n1', undefined, (n) => (n.spec = { unschedulable: true }));
    store.delete('nodes', 'n1');
    off();
    expect(seen.map((e) => `${e.type} ${e.resource}`)).toEqual(['ADDED nodes', 'MODIFIED nodes', 'DELETED nodes']);
    const history = store.historySince(start);
    expect(history !== 'expired' && history.map((r) => r.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    store.compactHistory();
    expect(store.historySince(start)).toBe('expired');
    expect(store.historySince(Number(store.resourceVersion()))).toEqual([]);
  });

  it('aggregates repeated events into one with a count', async () => {
    const { store, clock } = newStore();
    const event = { namespace: 'orders', involvedObject: { kind: 'Pod', name: 'p', namespace: 'orders' }, reason: 'FailedScheduling', message: 'no', type: 'Warning' as const };
    store.recordEvent(event);
    await clock.advance(30_000);
    store.recordEvent(event);
    const [only] = store.list('events', 'orders');
    expect(only).toMatchObject({ count: 2, firstTimestamp: '2026-01-01T09:00:00Z', lastTimestamp: '2026-01-01T09:00:30Z', source: { component: 'default-scheduler' } });
    expect(only.metadata.name).toMatch(/^p\.[0-9a-f]{16}$/);
  });

  it('evicts a pod without a PDB: DisruptionTarget, Terminating, then gone after the shutdown', async () => {
    const { store, clock } = newStore();
    store.create('pods', { metadata: { name: 'p', namespace: 'orders' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } });
    expect(store.evict('orders', 'p')).toEqual({ ok: true, code: 201, message: 'Success' });
    const terminating = store.get('pods', 'p', 'orders')!;
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }));
    await clock.advance(5000);
    expect(store.get('pods', 'p', 'orders')).toBeUndefined();
    expect(store.evict('orders', 'p')).toMatchObject({ ok: false, code: 404, message: 'pods "p" not found' });
  });

  it('deletes a namespace with everything in it', () => {
    const { store } = newStore();
    store.create('pods', { metadata: { name: 'p', namespace: 'gone' }, spec: {} });
    store.delete('namespaces', 'gone');
    expect(store.list('pods', 'gone')).toEqual([]);
  });
});
