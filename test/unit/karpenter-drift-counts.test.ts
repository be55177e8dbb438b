import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { countDrift, formatDriftProgress } from '../../src/planning/count-drift.js';
import { verifyPool } from '../../src/planning/planner/verify-pool.js';

const OLD = 'ami-0old';
const NEW = 'ami-0new';
const T0 = Date.UTC(2026, 0, 5, 12);
const cond = (type: string, status = 'True', reason = type) => ({ type, status, reason });
const ready = [cond('Launched'), cond('Registered'), cond('Initialized'), cond('Ready')];

function claim(name: string, opts: { image?: string; node?: string; conditions?: unknown[]; deleting?: boolean; pool?: string; createdMin?: number } = {}): KubeObject {
  return {
    metadata: {
      name, labels: { 'karpenter.sh/nodepool': opts.pool ?? 'default' },
      creationTimestamp: new Date(T0 + (opts.createdMin ?? 0) * 60_000).toISOString(),
      ...(opts.deleting ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
    },
    status: { imageID: opts.image, nodeName: opts.node, conditions: opts.conditions ?? ready },
  };
}

function node(name: string, minor: string, opts: { disrupted?: boolean; pool?: string } = {}): KubeObject {
  return {
    metadata: { name, labels: { 'karpenter.sh/nodepool': opts.pool ?? 'default' } },
    spec: { taints: opts.disrupted ? [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] : [] },
    status: { nodeInfo: { kubeletVersion: `v${minor}.14-eks-abc1234` }, conditions: [cond('Ready')] },
  };
}

const count = (claims: KubeObject[], nodes: KubeObject[], oldClaims: string[] = [], now = T0) =>
  countDrift({ pool: 'default', claims, nodes, oldClaims, targetAmis: [NEW], target: '1.31', now, readyTimeoutMs: 15 * 60_000 });

describe('counting a NodePool drift', () => {
  it('at the start: every claim on the old AMI is old, none replaced', () => {
    const c = count([claim('default-a', { image: OLD, node: 'n1' }), claim('default-b', { image: OLD, node: 'n2' })], [node('n1', '1.30'), node('n2', '1.30')]);
    expect(c).toMatchObject({ total: 2, replaced: 0, inFlight: 0, launching: 0, complete: false, oldClaims: ['default-a', 'default-b'] });
    expect(formatDriftProgress([c])).toBe('NodeClaims replaced 0/2');
  });

  it('mid-replacement: drifted, one old node tainted, its replacement launching', () => {
    const drifted = [...ready, cond('Drifted', 'True', 'AMIDrift')];
    const c = count(
      [
        claim('default-a', { image: OLD, node: 'n1', conditions: [...drifted, cond('DisruptionReason', 'True', 'Drifted')] }),
        claim('default-b', { image: OLD, node: 'n2', conditions: drifted }),
        claim('default-c', { conditions: [cond('Launched', 'Unknown')] }),
      ],
      [node('n1', '1.30', { disrupted: true }), node('n2', '1.30')],
      ['default-a', 'default-b'],
    );
    expect(c).toMatchObject({ total: 2, replaced: 0, drifted: 2, queued: 1, inFlight: 1, launching: 1, disruptedNodes: ['n1'], complete: false });
    expect(formatDriftProgress([c])).toBe('NodeClaims replaced 0/2, 1 in flight, 1 launching, 1 drifted, waiting');
  });

  it('counts an old claim that is gone as replaced, and is complete when every claim is on the target and Ready', () => {
    const half = count([claim('default-b', { image: OLD, node: 'n2' }), claim('default-c', { image: NEW, node: 'n3' })], [node('n2', '1.30'), node('n3', '1.31')], ['default-a', 'default-b']);
    expect(half).toMatchObject({ total: 2, replaced: 1, complete: false });
    const done = count([claim('default-c', { image: NEW, node: 'n3' }), claim('default-d', { image: NEW, node: 'n4' })], [node('n3', '1.31'), node('n4', '1.31')], ['default-a', 'default-b']);
    expect(done).toMatchObject({ total: 2, replaced: 2, inFlight: 0, complete: true });
    expect(formatDriftProgress([done])).toBe('NodeClaims replaced 2/2');
  });

  it('is not complete while a replacement is still coming up', () => {
    const c = count([claim('default-c', { image: NEW, node: 'n3', conditions: [cond('Launched'), cond('Registered'), cond('Initialized', 'Unknown', 'NodeNotReady')] })], [node('n3', '1.31')], ['default-a']);
    expect(c).toMatchObject({ replaced: 1, launching: 1, complete: false });
  });

  it('adds claims launched on an old image after the start (the total grows), and ignores other pools', () => {
    const c = count([claim('default-x', { image: OLD, node: 'n9' }), claim('gpu-a', { image: OLD, node: 'g1', pool: 'gpu' })], [node('n9', '1.30')], ['default-a']);
    expect(c.oldClaims).toEqual(['default-a', 'default-x']);
    expect(c).toMatchObject({ total: 2, replaced: 1 });
  });

  it('reports replacements not Ready within the timeout with what is missing', () => {
    const stuck = claim('default-z', { image: NEW, createdMin: 0, conditions: [cond('Launched'), cond('Registered', 'Unknown', 'NodeNotFound')] });
    expect(count([stuck], [], [], T0 + 10 * 60_000).notReady).toEqual([]);
    expect(count([stuck], [], [], T0 + 16 * 60_000).notReady).toEqual([
      { claim: 'default-z', node: undefined, ageMs: 16 * 60_000, pending: ['Registered: NodeNotFound', 'Initialized: not yet'] },
    ]);
  });

  it('sums several pools and names each', () => {
    const a = { ...count([], [], ['default-a']), pool: 'default' };
    const b = countDrift({ pool: 'gpu', claims: [claim('gpu-a', { image: OLD, node: 'g1', pool: 'gpu' })], nodes: [], oldClaims: [], targetAmis: [NEW], target: '1.31', now: T0, readyTimeoutMs: 1 });
    expect(formatDriftProgress([a, b])).toBe('NodeClaims replaced 1/2 (default 1/1, gpu 0/1)');
  });
});

describe('verifying a NodePool at the end', () => {
  const pod = (name: string, nodeName: string | undefined, phase: string, owner = 'checkout-rs'): KubeObject => ({
    metadata: { name, namespace: 'checkout', ownerReferences: [{ kind: 'ReplicaSet', name: owner, uid: owner, controller: true }] },
    spec: { nodeName },
    status: { phase },
  });

  it('passes when every node runs the target kubelet and every pod of its workloads is Running', () => {
    const v = verifyPool({ pool: 'default', target: '1.31', nodes: [node('n3', '1.31'), node('n4', '1.31'), node('other', '1.30', { pool: 'x' })], pods: [pod('a', 'n3', 'Running'), pod('b', 'n4', 'Running'), pod('elsewhere', 'm1', 'Pending', 'other-rs')] });
    expect(v).toEqual({ pool: 'default', nodes: 2, nodesBehind: [], pods: 2, podsNotRunning: [] });
  });

  it('names nodes behind and sibling pods left Pending', () => {
    const v = verifyPool({ pool: 'default', target: '1.31', nodes: [node('n3', '1.31'), node('n2', '1.30')], pods: [pod('a', 'n3', 'Running'), pod('b', undefined, 'Pending')] });
    expect(v.nodesBehind).toEqual(['n2 (v1.30.14-eks-abc1234)']);
    expect(v.podsNotRunning).toEqual(['checkout/b (Pending, not scheduled)']);
  });
});
