import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { planFargateRestarts, rolloutState } from '../../src/planning/deciders/fargate-workloads.js';

const fargateNode = (name: string, minor: string): KubeObject => ({
  metadata: { name, labels: { 'eks.amazonaws.com/compute-type': 'fargate' } },
  status: { nodeInfo: { kubeletVersion: `v${minor}.16-eks-3025e55` } },
});
const ec2Node = (name: string, minor: string): KubeObject => ({ metadata: { name, labels: {} }, status: { nodeInfo: { kubeletVersion: `v${minor}.16-eks-3025e55` } } });
const ready = [{ type: 'Ready', status: 'True' }];

function pod(name: string, nodeName: string, owner?: { kind: string; name: string }, opts: { namespace?: string; labels?: Record<string, string>; phase?: string; deleting?: boolean } = {}): KubeObject {
  return {
    metadata: {
      name, namespace: opts.namespace ?? 'assets', labels: opts.labels ?? { app: 'assets' },
      ownerReferences: owner ? [{ ...owner, controller: true }] : undefined,
      ...(opts.deleting ? { deletionTimestamp: '2026-01-05T12:00:00Z' } : {}),
    },
    spec: { nodeName },
    status: { phase: opts.phase ?? 'Running', conditions: ready },
  };
}
const rs = (name: string, deployment?: string, namespace = 'assets'): KubeObject => ({
  metadata: { name, namespace, ownerReferences: deployment ? [{ kind: 'Deployment', name: deployment, controller: true }] : undefined },
});

describe('grouping Fargate pods behind the target by workload', () => {
  it('groups pods on old Fargate nodes under their Deployment (via the ReplicaSet) or StatefulSet', () => {
    const plan = planFargateRestarts({
      target: '1.26',
      nodes: [fargateNode('fargate-a', '1.25'), fargateNode('fargate-b', '1.25'), fargateNode('fargate-c', '1.26'), ec2Node('ip-1', '1.25')],
      pods: [
        pod('assets-7d9-x', 'fargate-a', { kind: 'ReplicaSet', name: 'assets-7d9' }),
        pod('assets-7d9-y', 'fargate-b', { kind: 'ReplicaSet', name: 'assets-7d9' }),
        pod('db-0', 'fargate-c', { kind: 'StatefulSet', name: 'db' }), // already on 1.26
        pod('cache-0', 'fargate-b', { kind: 'StatefulSet', name: 'cache' }),
        pod('ui-1', 'ip-1', { kind: 'ReplicaSet', name: 'ui-1' }), // not Fargate
      ],
      replicaSets: [rs('assets-7d9', 'assets')],
    });
    expect(plan).toEqual({
      fargateNodes: 3,
      workloads: [
        { resource: 'deployments', namespace: 'assets', name: 'assets', pods: ['assets/assets-7d9-x', 'assets/assets-7d9-y'] },
        { resource: 'statefulsets', namespace: 'assets', name: 'cache', pods: ['assets/cache-0'] },
      ],
      manual: [],
    });
  });

  it('reports bare pods, ReplicaSets without a Deployment and Job runs for the operator; skips finished and terminating pods', () => {
    const plan = planFargateRestarts({
      target: '1.26',
      nodes: [fargateNode('fargate-a', '1.25')],
      pods: [
        pod('debug', 'fargate-a'),
        pod('legacy-x', 'fargate-a', { kind: 'ReplicaSet', name: 'legacy' }),
        pod('nightly-1', 'fargate-a', { kind: 'Job', name: 'nightly' }),
        pod('done', 'fargate-a', { kind: 'Job', name: 'old' }, { phase: 'Succeeded' }),
        pod('going', 'fargate-a', undefined, { deleting: true }),
      ],
      replicaSets: [rs('legacy')],
    });
    expect(plan.workloads).toEqual([]);
    expect(plan.manual).toEqual([
      'assets/debug has no owner: delete it and create it again to move it to a new Fargate node',
      'assets/legacy-x belongs to ReplicaSet legacy without a Deployment: delete the pod and its ReplicaSet recreates it on a new node',
      'assets/nightly-1 is a run of Job nightly: it finishes on its node; later runs start on new nodes',
    ]);
  });
});

describe('whether a restarted workload has moved', () => {
  const deployment = (status: Record<string, unknown>, generation = 2): KubeObject => ({
    metadata: { name: 'assets', namespace: 'assets', generation },
    spec: { replicas: 1, selector: { matchLabels: { app: 'assets' } } },
    status: { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1, ...status },
  });
  const nodes = [fargateNode('fargate-old', '1.25'), fargateNode('fargate-new', '1.26')];

  it('is done when the rollout is complete and every pod is Ready on a target Fargate node', () => {
    expect(rolloutState({ workload: deployment({}), resource: 'deployments', pods: [pod('assets-2', 'fargate-new')], nodes, target: '1.26' })).toEqual({ done: true, wanted: 1, moved: 1, old: 0 });
  });

  it('is not done while the old pod is still terminating, the controller has not observed the restart, or the new pod is not Ready', () => {
    const both = [pod('assets-2', 'fargate-new'), pod('assets-1', 'fargate-old', undefined, { deleting: true })];
    expect(rolloutState({ workload: deployment({}), resource: 'deployments', pods: both, nodes, target: '1.26' })).toMatchObject({ done: false, moved: 1, old: 1 });
    expect(rolloutState({ workload: deployment({ observedGeneration: 1 }), resource: 'deployments', pods: [pod('assets-2', 'fargate-new')], nodes, target: '1.26' }).done).toBe(false);
    const starting = { ...pod('assets-2', 'fargate-new'), status: { phase: 'Pending', conditions: [] } };
    expect(rolloutState({ workload: deployment({ availableReplicas: 0 }), resource: 'deployments', pods: [starting], nodes, target: '1.26' })).toMatchObject({ done: false, moved: 0 });
  });

  it('ignores pods of other workloads in the namespace, and counts a deleted workload as done', () => {
    const other = pod('ui-1', 'fargate-old', undefined, { labels: { app: 'ui' } });
    expect(rolloutState({ workload: deployment({}), resource: 'deployments', pods: [pod('assets-2', 'fargate-new'), other], nodes, target: '1.26' }).done).toBe(true);
    expect(rolloutState({ workload: undefined, resource: 'deployments', pods: [], nodes, target: '1.26' }).done).toBe(true);
  });
});
