import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { findDrainBlockers, safeRemedy } from '../../src/planning/workloads/find-drain-blockers.js';
import { matchesSelector } from '../../src/planning/label-selector.js';

const pod = (name: string, node: string, labels: Record<string, string>, owner?: { kind: string; name: string }): KubeObject => ({
  metadata: { name, namespace: 'orders', labels, ownerReferences: owner ? [owner] : [] },
  spec: { nodeName: node },
});
const rs: KubeObject = { metadata: { name: 'orders-5b97', namespace: 'orders', ownerReferences: [{ kind: 'Deployment', name: 'orders' }] } };
const deployment: KubeObject = { metadata: { name: 'orders', namespace: 'orders' }, spec: { replicas: 1 } };
const pdb = (minAvailable: number | string, disruptionsAllowed: number): KubeObject => ({
  metadata: { name: 'orders-pdb', namespace: 'orders' },
  spec: { minAvailable, selector: { matchLabels: { app: 'orders' } } },
  status: { disruptionsAllowed },
});

describe('findDrainBlockers / safeRemedy (the workshop orders-pdb case)', () => {
  const pods = [
    pod('orders-5b97-x1', 'blue-1', { app: 'orders' }, { kind: 'ReplicaSet', name: 'orders-5b97' }),
    pod('aws-node-abc', 'blue-1', { app: 'aws-node' }, { kind: 'DaemonSet', name: 'aws-node' }),
    pod('orders-5b97-x2', 'green-1', { app: 'orders' }, { kind: 'ReplicaSet', name: 'orders-5b97' }),
  ];

  it('names the pod on a drained node that a PDB with no disruptions left protects, and its deployment', () => {
    const blockers = findDrainBlockers({ pods, pdbs: [pdb(1, 0)], replicaSets: [rs], nodes: ['blue-1'] });
    expect(blockers).toEqual([{ pod: 'orders/orders-5b97-x1', node: 'blue-1', pdb: 'orders/orders-pdb', disruptionsAllowed: 0, deployment: 'orders/orders' }]);
  });

  it('offers scaling the deployment one up when minAvailable demands every replica', () => {
    const blockers = findDrainBlockers({ pods, pdbs: [pdb(1, 0)], replicaSets: [rs], nodes: ['blue-1'] });
    expect(safeRemedy(blockers, [deployment], [pdb(1, 0)])).toEqual({ label: 'Scale orders to 2 replicas', namespace: 'orders', deployment: 'orders', replicas: 2 });
  });

  it('still offers it while another PDB blocks only until its replacement pod is Ready, and not beside a second lasting blocker', () => {
    // api: 2 replicas behind minAvailable 1, at 0 disruptions while one of its pods is being replaced (the drain of
    // nodegroup-blue-green-force, beside a second suite). It clears by itself; orders never will.
    const api = (replicas: number): KubeObject => ({ metadata: { name: 'api', namespace: 'orders' }, spec: { replicas } });
    const apiRs: KubeObject = { metadata: { name: 'api-7c', namespace: 'orders', ownerReferences: [{ kind: 'Deployment', name: 'api' }] } };
    const apiPdb: KubeObject = { metadata: { name: 'api-pdb', namespace: 'orders' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'api' } } }, status: { disruptionsAllowed: 0 } };
    const both = [...pods, pod('api-7c-y1', 'blue-1', { app: 'api' }, { kind: 'ReplicaSet', name: 'api-7c' })];
    const blockers = findDrainBlockers({ pods: both, pdbs: [pdb(1, 0), apiPdb], replicaSets: [rs, apiRs], nodes: ['blue-1'] });
    expect(blockers.map((b) => b.deployment)).toEqual(['orders/orders', 'orders/api']);
    expect(safeRemedy(blockers, [deployment, api(2)], [pdb(1, 0), apiPdb])).toEqual({ label: 'Scale orders to 2 replicas', namespace: 'orders', deployment: 'orders', replicas: 2 });
    // With api at 1 replica, both block for good: no single safe remedy.
    expect(safeRemedy(blockers, [deployment, api(1)], [pdb(1, 0), apiPdb])).toBeUndefined();
  });

  it('offers no remedy for percentages, and finds nothing when the PDB allows a disruption', () => {
    const blockers = findDrainBlockers({ pods, pdbs: [pdb('100%', 0)], replicaSets: [rs], nodes: ['blue-1'] });
    expect(safeRemedy(blockers, [deployment], [pdb('100%', 0)])).toBeUndefined();
    expect(findDrainBlockers({ pods, pdbs: [pdb(1, 1)], replicaSets: [rs], nodes: ['blue-1'] })).toEqual([]);
  });

  it('matches label selectors with expressions', () => {
    expect(matchesSelector({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }, { tier: 'api' })).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['api'] }] }, { tier: 'api' })).toBe(false);
    expect(matchesSelector({ matchLabels: { app: 'a' }, matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, { app: 'a' })).toBe(true);
    expect(matchesSelector(undefined, { app: 'a' })).toBe(false);
  });
});
