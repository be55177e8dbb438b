import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { makeNode } from '@eks-upgrade-bot/sim';
import { countRollout, describeLanding, describeRollout, isRolledOut, oldNodesOf, podsByNode } from '../../src/planning/nodegroup-rollout.js';

/**
 * What the node-group step tells people about a rollout, from the Node and Pod objects its watches hold: new nodes
 * Ready or joining, old nodes waiting, draining (cordoned with pods to move), drained (on their way out).
 */
const node = (name: string, minor: string, opts: { ready?: boolean; cordoned?: boolean } = {}) =>
  makeNode({
    name, labels: { 'eks.amazonaws.com/nodegroup': 'demo-ng' }, kubeletVersion: `v${minor}.9-eks-abcdef0`,
    instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', ready: opts.ready ?? true, unschedulable: opts.cordoned,
  });

const pod = (name: string, nodeName: string, opts: { namespace?: string; daemonSet?: boolean; phase?: string } = {}): KubeObject => ({
  metadata: { name, namespace: opts.namespace ?? 'shop', ownerReferences: opts.daemonSet ? [{ kind: 'DaemonSet', name: 'kube-proxy' }] : [{ kind: 'ReplicaSet', name: 'web-1' }] },
  spec: { nodeName },
  status: { phase: opts.phase ?? 'Running' },
});

describe('a node group rollout, counted', () => {
  it('tells new nodes (Ready or joining) from old ones waiting, draining and drained', () => {
    const nodes = [
      node('new-a', '1.31'),
      node('new-b', '1.31', { ready: false }),
      node('old-waiting', '1.30'),
      node('old-draining', '1.30', { cordoned: true }),
      node('old-empty', '1.30', { cordoned: true }),
      node('old-gone', '1.30', { cordoned: true, ready: false }),
    ];
    const pods = podsByNode([
      pod('web-1', 'old-draining'),
      pod('kube-proxy-1', 'old-empty', { daemonSet: true }),
      pod('job-1', 'old-empty', { phase: 'Succeeded' }),
      pod('web-2', 'old-gone'),
    ]);
    const counts = countRollout(nodes, pods, '1.31', 2);
    expect(counts).toMatchObject({ desired: 2, readyAtTarget: 1, joiningAtTarget: 1, waiting: 1, draining: 1, drained: 2 });
    expect(oldNodesOf(counts)).toBe(4);
    expect(isRolledOut(counts)).toBe(false);
    expect(counts.laggards).toEqual([
      'new-b (v1.31.9-eks-abcdef0, NotReady)',
      'old-waiting (v1.30.9-eks-abcdef0, Ready)',
      'old-draining (v1.30.9-eks-abcdef0, Ready)',
      'old-empty (v1.30.9-eks-abcdef0, Ready)',
      'old-gone (v1.30.9-eks-abcdef0, NotReady)',
    ]);
    expect(describeRollout('demo-ng', '1.31', counts)).toBe(
      'Node group demo-ng: 1/2 nodes at 1.31 (1 joining, 1 old node draining, 2 old nodes drained, terminating, 1 old node waiting)',
    );
  });

  it('is rolled out only when every node is at the target and Ready', () => {
    const done = countRollout([node('a', '1.31'), node('b', '1.31')], new Map(), '1.31', 2);
    expect(isRolledOut(done)).toBe(true);
    expect(describeRollout('demo-ng', '1.31', done)).toBe('Node group demo-ng: 2/2 nodes at 1.31');
    expect(isRolledOut(countRollout([], new Map(), '1.31', 0))).toBe(true);
    // During the surge the new nodes outnumber the group's size; the line never reads "4/2".
    const surge = countRollout([node('a', '1.31'), node('b', '1.31'), node('c', '1.31'), node('d', '1.30', { cordoned: true })], new Map(), '1.31', 2);
    expect(describeRollout('demo-ng', '1.31', surge)).toBe('Node group demo-ng: 3/3 nodes at 1.31 (1 old node drained, terminating)');
    expect(describeRollout('solo', '1.31', countRollout([node('a', '1.31')], new Map(), '1.31', 1))).toBe('Node group solo: 1/1 node at 1.31');
  });
});

describe('where the pods landed', () => {
  it('counts the workload pods on the green nodes by namespace, largest first', () => {
    const pods = podsByNode([
      pod('web-1', 'g1'), pod('web-2', 'g2'), pod('web-3', 'g2'),
      pod('coredns-1', 'g1', { namespace: 'kube-system' }),
      pod('aws-node-1', 'g1', { namespace: 'kube-system', daemonSet: true }),
      pod('elsewhere', 'blue-1', { namespace: 'orders' }),
    ]);
    expect(describeLanding(['g1', 'g2'], pods)).toEqual({ count: 4, text: '4 pods on 2 nodes (shop ×3, kube-system ×1)' });
    expect(describeLanding([], pods)).toEqual({ count: 0, text: '0 pods on 0 nodes' });
  });
});
