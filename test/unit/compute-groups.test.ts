import { describe, expect, it } from 'vitest';
import { computeOfNode, kubeletOf } from '../../src/planning/compute-groups.js';
import { makeNode } from '@eks-upgrade-bot/sim';

describe('compute type of a node', () => {
  it('tells managed node groups, Karpenter NodePools, Fargate and self-managed nodes apart by their labels', () => {
    const base = { kubeletVersion: 'v1.30.1', instanceType: 'm5.large', zone: 'a', region: 'r' };
    const nodes = [
      makeNode({ ...base, name: 'n1', labels: { 'eks.amazonaws.com/nodegroup': 'blue-mng' } }),
      makeNode({ ...base, name: 'n2', labels: { 'karpenter.sh/nodepool': 'default' } }),
      makeNode({ ...base, name: 'n3', labels: { 'eks.amazonaws.com/compute-type': 'fargate' } }),
      makeNode({ ...base, name: 'n4', labels: { 'alpha.eksctl.io/nodegroup-name': 'legacy' } }),
      makeNode({ ...base, name: 'n5', labels: { 'karpenter.sh/nodepool': 'default' }, kubeletVersion: 'v1.29.9' }),
    ];
    expect(nodes.map((node) => [computeOfNode(node).type, computeOfNode(node).name, kubeletOf(node)])).toEqual([
      ['managed-nodegroup', 'blue-mng', 'v1.30.1'],
      ['karpenter', 'default', 'v1.30.1'],
      ['fargate', 'fargate', 'v1.30.1'],
      ['self-managed', 'legacy', 'v1.30.1'],
      ['karpenter', 'default', 'v1.29.9'],
    ]);
  });
});
