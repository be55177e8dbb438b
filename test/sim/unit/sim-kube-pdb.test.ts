import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { decideEviction } from '../../../src/sim/kube/api/eviction.js';
import { computePdbStatus, scaledValue } from '../../../src/sim/kube/controllers/pdb-status.js';

const NOW = Date.UTC(2026, 0, 1);

function pod(name: string, opts: { ready?: boolean; phase?: string; terminating?: boolean; labels?: Record<string, string> } = {}): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'orders',
      labels: opts.labels ?? { app: 'orders' },
      ownerReferences: [{ kind: 'ReplicaSet', name: 'orders-5b97745747', controller: true }],
      ...(opts.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: { phase: opts.phase ?? 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

function pdb(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'orders-pdb', namespace: 'orders', generation: 1 }, spec: { selector: { matchLabels: { app: 'orders' } }, ...spec }, ...(status ? { status } : {}) };
}

const byDeployment = (replicas: number) => () => ({ key: 'Deployment/orders/orders', replicas });

describe('PDB status arithmetic (disruption controller)', () => {
  it('gives orders-pdb minAvailable 1 over one replica zero allowed disruptions, as in the workshop', () => {
    const status = computePdbStatus(pdb({ minAvailable: 1 }), [pod('a')], byDeployment(1), NOW);
    expect(status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0, observedGeneration: 1 });
    expect((status.conditions as any[])[0]).toMatchObject({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' });
  });

  it('allows one disruption once orders runs two ready replicas', () => {
    const status = computePdbStatus(pdb({ minAvailable: 1 }), [pod('a'), pod('b')], byDeployment(2), NOW);
    expect(status).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    expect((status.conditions as any[])[0]).toMatchObject({ status: 'True', reason: 'SufficientPods' });
  });

  it('does not count unready, terminating or just-evicted pods as healthy', () => {
    const evicted = pdb({ minAvailable: 1 }, { disruptedPods: { c: '2026-01-01T00:00:00Z' } });
    const status = computePdbStatus(evicted, [pod('a'), pod('b', { ready: false }), pod('c'), pod('d', { terminating: true })], byDeployment(4), NOW + 1000);
    expect(status).toMatchObject({ currentHealthy: 1, disruptionsAllowed: 0, disruptedPods: { c: '2026-01-01T00:00:00Z' } });
    // Two minutes later the controller gives up on the eviction it never saw happen.
    const later = computePdbStatus(evicted, [pod('a'), pod('c')], byDeployment(2), NOW + 2 * 60 * 1000 + 1);
    expect(later).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
    expect(later.disruptedPods).toBeUndefined();
  });

  it('scales percentages against the controller replicas, rounding up', () => {
    // minAvailable 50% of 3 → ceil(1.5) = 2 desired.
    expect(computePdbStatus(pdb({ minAvailable: '50%' }), [pod('a'), pod('b'), pod('c')], byDeployment(3), NOW)).toMatchObject({ desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
    // maxUnavailable 25% of 3 → ceil(0.75) = 1 unavailable → 2 desired.
    expect(computePdbStatus(pdb({ maxUnavailable: '25%' }), [pod('a'), pod('b'), pod('c')], byDeployment(3), NOW)).toMatchObject({ desiredHealthy: 2, disruptionsAllowed: 1 });
    // maxUnavailable 0 blocks everything; maxUnavailable 1 of 1 allows one.
    expect(computePdbStatus(pdb({ maxUnavailable: 0 }), [pod('a')], byDeployment(1), NOW)).toMatchObject({ desiredHealthy: 1, disruptionsAllowed: 0 });
    expect(computePdbStatus(pdb({ maxUnavailable: 1 }), [pod('a')], byDeployment(1), NOW)).toMatchObject({ desiredHealthy: 0, disruptionsAllowed: 1 });
    // Expected pods come from the deployment: a replica that is missing still counts.
    expect(computePdbStatus(pdb({ maxUnavailable: 1 }), [pod('a')], byDeployment(2), NOW)).toMatchObject({ expectedPods: 2, desiredHealthy: 1, disruptionsAllowed: 0 });
  });

  it('allows nothing while the PDB matches no pods', () => {
    expect(computePdbStatus(pdb({ maxUnavailable: 1 }), [], byDeployment(0), NOW)).toMatchObject({ expectedPods: 0, disruptionsAllowed: 0 });
  });

  it('rounds like intstr.GetScaledValueFromIntOrPercent', () => {
    expect(scaledValue('10%', 2, true)).toBe(1);
    expect(scaledValue('10%', 2, false)).toBe(0);
    expect(scaledValue('100%', 7, true)).toBe(7);
    expect(scaledValue(3, 7, true)).toBe(3);
  });
});

describe('eviction decisions (eviction subresource)', () => {
  const blocking = pdb({ minAvailable: 1 }, { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 });

  it('refuses with 429 and the DisruptionBudget cause when no disruption is allowed', () => {
    const decision = decideEviction(pod('a'), [blocking]);
    expect(decision.action).toBe('refuse');
    if (decision.action !== 'refuse') return;
    expect(decision.status).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget orders-pdb needs 1 healthy pods and has 1 currently' }] },
    });
  });

  it('grants and decrements when a disruption is allowed', () => {
    const open = pdb({ minAvailable: 1 }, { observedGeneration: 1, currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    expect(decideEviction(pod('a'), [open])).toMatchObject({ action: 'delete-and-decrement' });
  });

  it('answers 500 for a pod with two PDBs', () => {
    const decision = decideEviction(pod('a'), [blocking, { ...blocking, metadata: { ...blocking.metadata, name: 'other' } }]);
    expect(decision).toMatchObject({ action: 'refuse', status: { code: 500, reason: 'InternalError' } });
    if (decision.action === 'refuse') expect(decision.status.message).toContain('more than one PodDisruptionBudget');
  });

  it('lets pending, finished and terminating pods go regardless of budgets', () => {
    for (const p of [pod('a', { phase: 'Pending' }), pod('b', { phase: 'Succeeded' }), pod('c', { phase: 'Failed' }), pod('d', { terminating: true })]) {
      expect(decideEviction(p, [blocking, blocking])).toEqual({ action: 'delete' });
    }
  });

  it('lets an unready pod go while the budget is otherwise met, or always under AlwaysAllow', () => {
    const met = pdb({ minAvailable: 1 }, { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0 });
    expect(decideEviction(pod('x', { ready: false }), [met])).toEqual({ action: 'delete' });
    const unmet = pdb({ minAvailable: 2 }, { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2, disruptionsAllowed: 0 });
    expect(decideEviction(pod('x', { ready: false }), [unmet]).action).toBe('refuse');
    const always = pdb({ minAvailable: 2, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, unmet.status);
    expect(decideEviction(pod('x', { ready: false }), [always])).toEqual({ action: 'delete' });
  });

  it('asks to retry while the controller has not processed the PDB', () => {
    const fresh = pdb({ minAvailable: 1 });
    expect(decideEviction(pod('a'), [fresh])).toMatchObject({ action: 'refuse', status: { code: 429, details: { retryAfterSeconds: 10 } } });
  });
});
