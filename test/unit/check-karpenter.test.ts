import { describe, expect, it } from 'vitest';
import { checkKarpenter, driftBudget } from '../../src/planning/checks/karpenter/karpenter-checks.js';
import { readOk, type ClusterSnapshot } from '../../src/planning/cluster-snapshot.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { codes, healthySnapshot } from './check-snapshot-fixture.js';

function nodePool(name: string, budgets?: unknown[], nodeClass = 'default'): KubeObject {
  return {
    metadata: { name },
    spec: { disruption: budgets ? { budgets } : {}, template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass } } } },
  } as KubeObject;
}

function nodeClass(name: string, spec: Record<string, unknown>, amis: unknown[] = []): KubeObject {
  return { metadata: { name }, spec, status: { amis } } as KubeObject;
}

function withKarpenter(nodePools: KubeObject[], nodeClasses: KubeObject[], version = '1.30'): ClusterSnapshot {
  const s = healthySnapshot();
  s.cluster = readOk({ ...(s.cluster as any).value, version });
  s.kube = { ...s.kube, karpenter: readOk({ nodePools, nodeClaims: [], nodeClasses }) };
  return s;
}

const alias = nodeClass('default', { amiSelectorTerms: [{ alias: 'al2023@latest' }] });

describe('Karpenter checks (KAR0xx)', () => {
  it('no Karpenter, nothing to say', () => {
    expect(checkKarpenter(healthySnapshot(), '1.31')).toEqual([]);
  });

  it('reads drift budgets: default 10%, "0" blocks always, scheduled "0" blocks in windows, other reasons do not count', () => {
    expect(driftBudget(nodePool('a'))).toEqual({ alwaysZero: false, zeroWindows: [], nodes: ['10%'] });
    expect(driftBudget(nodePool('a', [{ nodes: '0' }])).alwaysZero).toBe(true);
    expect(driftBudget(nodePool('a', [{ nodes: '0%' }])).alwaysZero).toBe(true);
    expect(driftBudget(nodePool('a', [{ nodes: '0', reasons: ['Underutilized', 'Empty'] }, { nodes: '1' }])).alwaysZero).toBe(false);
    expect(driftBudget(nodePool('a', [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }, { nodes: '10' }]))).toMatchObject({ alwaysZero: false, zeroWindows: ['"0 9 * * mon-fri" for 8h'] });
  });

  it('KAR001: a NodePool allowing 0 drift disruptions warns and says the job lifts the budget to the configured one', () => {
    const found = checkKarpenter(withKarpenter([nodePool('default', [{ nodes: '0' }])], [alias]), '1.31');
    const [finding] = found.filter((f) => f.code === 'KAR001');
    expect(finding.severity).toBe('warning');
    expect(finding.remedy).toContain('nodes: "1"');
    const scheduled = checkKarpenter(withKarpenter([nodePool('default', [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }])], [alias]), '1.31');
    expect(codes(scheduled.filter((f) => f.code === 'KAR001'))).toEqual(['KAR001:info']);
  });

  it('KAR002: a class pinning an AMI id names the pinned minor and the next AMI resolved from SSM', () => {
    const pinned = nodeClass('default', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0ee947a6f4880da75' }] });
    const s = withKarpenter([nodePool('default')], [pinned], '1.25');
    s.amis = [
      { minor: '1.25', family: 'AL2023', arch: 'x86_64', parameter: '/p/1.25', imageId: 'ami-0ee947a6f4880da75' },
      { minor: '1.26', family: 'AL2023', arch: 'x86_64', parameter: '/aws/service/eks/optimized-ami/1.26/amazon-linux-2023/x86_64/standard/recommended/image_id', imageId: 'ami-0new126' },
    ];
    const [finding] = checkKarpenter(s, '1.26');
    expect(finding).toMatchObject({ code: 'KAR002', severity: 'warning', resources: ['ec2nodeclass/default', 'nodepool/default'] });
    expect(finding.title).toBe(
      'EC2NodeClass default (NodePool default) pins ami-0ee947a6f4880da75 (the 1.25 AMI): its nodes stay there until it points at ami-0new126 (the 1.26 AL2023 x86_64 AMI, SSM /aws/service/eks/optimized-ami/1.26/amazon-linux-2023/x86_64/standard/recommended/image_id)',
    );
  });

  it('KAR002 falls back to the image name Karpenter resolved when SSM was not asked', () => {
    const pinned = nodeClass('gpu', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0abc' }] }, [{ id: 'ami-0abc', name: 'amazon-eks-node-al2023-x86_64-standard-1.29-v20250715' }]);
    expect(checkKarpenter(withKarpenter([], [pinned]), '1.31')[0].title).toContain('ami-0abc (the 1.29 AMI)');
  });

  it('KAR003: an alias follows the control plane by itself (info)', () => {
    const [finding] = checkKarpenter(withKarpenter([nodePool('default')], [alias]), '1.31');
    expect(finding).toMatchObject({ code: 'KAR003', severity: 'info' });
    expect(finding.title).toContain('follows the alias al2023@latest');
  });

  it.each([
    ['1.32', ['KAR004:warning']],
    ['1.33', ['KAR004:error']],
  ])('KAR004: an AL2 class with target %s', (target, expected) => {
    const al2 = nodeClass('old', { amiSelectorTerms: [{ alias: 'al2@latest' }] });
    const found = checkKarpenter(withKarpenter([], [al2], `1.${Number(target.split('.')[1]) - 1}`), target).filter((f) => f.code === 'KAR004');
    expect(codes(found)).toEqual(expected);
  });

  it('KAR005: a NodePool whose EC2NodeClass is missing', () => {
    expect(codes(checkKarpenter(withKarpenter([nodePool('default', undefined, 'gone')], []), '1.31'))).toEqual(['KAR005:warning']);
  });
});
