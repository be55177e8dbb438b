import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { amiParameter } from '../../src/planning/deciders/ami-parameters.js';
import { archesOfNodePool, decideAmiAction, pinnedTerms, termsPinTo } from '../../src/planning/deciders/decide-ami-action.js';

const nodeClass = (spec: Record<string, unknown>, name = 'default'): KubeObject => ({ metadata: { name }, spec });
const nodePool = (requirements: unknown[] = []): KubeObject => ({ metadata: { name: 'default' }, spec: { template: { spec: { requirements } } } });
const node = (arch: string): KubeObject => ({ metadata: { name: `n-${arch}`, labels: { 'kubernetes.io/arch': arch } } });

describe('which SSM parameter holds the target AMI', () => {
  it('names the public parameter of each family and architecture', () => {
    expect(amiParameter('1.31', 'AL2023', 'x86_64')).toBe('/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id');
    expect(amiParameter('1.31', 'AL2023', 'arm64')).toBe('/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id');
    expect(amiParameter('1.26', 'AL2', 'x86_64')).toBe('/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id');
    expect(amiParameter('1.26', 'AL2', 'arm64')).toBe('/aws/service/eks/optimized-ami/1.26/amazon-linux-2-arm64/recommended/image_id');
    expect(amiParameter('1.31', 'Bottlerocket', 'x86_64')).toBe('/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id');
  });
});

describe('architectures of a NodePool', () => {
  it('defaults to amd64 (x86_64) without an arch requirement', () => {
    expect(archesOfNodePool(nodePool())).toEqual(['x86_64']);
  });

  it('reads In and NotIn requirements, and adds the arch of nodes the pool already runs', () => {
    expect(archesOfNodePool(nodePool([{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64', 'amd64'] }]))).toEqual(['arm64', 'x86_64']);
    expect(archesOfNodePool(nodePool([{ key: 'kubernetes.io/arch', operator: 'NotIn', values: ['amd64'] }]))).toEqual(['arm64']);
    expect(archesOfNodePool(nodePool([{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }]), [node('arm64')])).toEqual(['arm64', 'x86_64']);
  });
});

describe('what an EC2NodeClass needs for the target', () => {
  it('pins a class that selects its AMI by id (the drift lab) to the target from its family parameter', () => {
    const action = decideAmiAction(nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0f676a166352f02ab' }] }), { target: '1.31', arches: ['x86_64'] });
    expect(action).toEqual({ kind: 'pin', family: 'AL2023', lookups: [{ arch: 'x86_64', parameter: amiParameter('1.31', 'AL2023', 'x86_64') }] });
  });

  it('pins classes selecting by name or ssmParameter too, one lookup per architecture', () => {
    const action = decideAmiAction(nodeClass({ amiFamily: 'Bottlerocket', amiSelectorTerms: [{ name: 'bottlerocket-aws-k8s-1.30-*' }] }), { target: '1.31', arches: ['arm64', 'x86_64'] });
    expect(action.kind === 'pin' && action.lookups.map((l) => l.parameter)).toEqual([
      '/aws/service/bottlerocket/aws-k8s-1.31/arm64/latest/image_id',
      '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id',
    ]);
  });

  it('leaves an @latest alias alone: it follows the cluster version by itself', () => {
    const action = decideAmiAction(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest' }] }), { target: '1.31', arches: ['x86_64'] });
    expect(action.kind).toBe('follows-version');
    expect(action.kind === 'follows-version' && action.family).toBe('AL2023');
  });

  it('checks a pinned-release alias against the release parameter for the target', () => {
    const action = decideAmiAction(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20240807' }] }), { target: '1.31', arches: ['x86_64'] });
    expect(action.kind).toBe('pinned-alias');
    if (action.kind !== 'pinned-alias') return;
    expect(action.release).toBe('v20240807');
    expect(action.lookups[0].parameter).toBe(
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.31-v20240807/image_id',
    );
    expect(action.latest[0].parameter).toBe(amiParameter('1.31', 'AL2023', 'x86_64'));
  });

  it('asks the operator when there is no EKS-optimized image to move to', () => {
    const custom = decideAmiAction(nodeClass({ amiFamily: 'Custom', amiSelectorTerms: [{ id: 'ami-0123' }] }, 'gpu'), { target: '1.31', arches: ['x86_64'] });
    expect(custom).toMatchObject({ kind: 'manual' });
    expect(custom.kind === 'manual' && custom.reason).toMatch(/EC2NodeClass gpu has amiFamily Custom.*build a 1\.31 AMI/);
    const tagged = decideAmiAction(nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { team: 'x' } }] }), { target: '1.31', arches: ['x86_64'] });
    expect(tagged.kind === 'manual' && tagged.reason).toMatch(/by tags or owner/);
  });
});

describe('pinned terms', () => {
  it('are one id term per image, and recognised when already in place', () => {
    expect(pinnedTerms(['ami-1', 'ami-2', 'ami-1'])).toEqual([{ id: 'ami-1' }, { id: 'ami-2' }]);
    expect(termsPinTo([{ id: 'ami-2' }, { id: 'ami-1' }], ['ami-1', 'ami-2'])).toBe(true);
    expect(termsPinTo([{ id: 'ami-1' }], ['ami-1', 'ami-2'])).toBe(false);
    expect(termsPinTo([{ id: 'ami-1', owner: 'self' }], ['ami-1'])).toBe(false);
    expect(termsPinTo([{ alias: 'al2023@latest' }], ['ami-1'])).toBe(false);
  });
});
