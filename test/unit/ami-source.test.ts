import { describe, expect, it } from 'vitest';
import { amiParameter, variantOfAmiType, variantOfImageName, variantOfNode, windowsAmiParameter } from '../../src/planning/deciders/ami-parameters.js';
import { selfManagedAmiSource } from '../../src/planning/deciders/ami-source.js';
import { configuredAmiSource } from '../../src/planning/deciders/configured-ami-source.js';
import { variantsOfNodeClass } from '../../src/planning/deciders/decide-ami-action.js';

/** Which AMI a group moves to: the same family, architecture and variant (eks.md's SSM paths), or clusters.yaml's. */
describe('amiParameter keeps the variant', () => {
  it('names the NVIDIA, Neuron and GPU images, not the standard one', () => {
    expect(amiParameter('1.30', 'AL2023', 'x86_64', 'nvidia')).toBe('/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/nvidia/recommended/image_id');
    expect(amiParameter('1.30', 'AL2023', 'x86_64', 'neuron')).toBe('/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/neuron/recommended/image_id');
    expect(amiParameter('1.26', 'AL2', 'x86_64', 'nvidia')).toBe('/aws/service/eks/optimized-ami/1.26/amazon-linux-2-gpu/recommended/image_id');
    expect(amiParameter('1.30', 'Bottlerocket', 'arm64', 'nvidia')).toBe('/aws/service/bottlerocket/aws-k8s-1.30-nvidia/arm64/latest/image_id');
    expect(amiParameter('1.26', 'AL2', 'arm64')).toBe('/aws/service/eks/optimized-ami/1.26/amazon-linux-2-arm64/recommended/image_id');
    expect(windowsAmiParameter('1.30', 'Windows Server 2022 Datacenter')).toBe('/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.30/image_id');
  });

  it('reads the variant from amiType, the node and an image name', () => {
    expect(['AL2_x86_64_GPU', 'AL2023_x86_64_NVIDIA', 'AL2023_x86_64_NEURON', 'BOTTLEROCKET_ARM_64_NVIDIA', 'AL2_x86_64'].map(variantOfAmiType)).toEqual(['nvidia', 'nvidia', 'neuron', 'nvidia', 'standard']);
    const node = (type: string, capacity: Record<string, string> = {}) => ({ metadata: { name: 'n', labels: { 'node.kubernetes.io/instance-type': type } }, status: { capacity } });
    expect([node('g5.xlarge'), node('inf2.xlarge'), node('m5.large', { 'nvidia.com/gpu': '1' }), node('m5.large')].map(variantOfNode)).toEqual(['nvidia', 'neuron', 'nvidia', 'standard']);
    expect(variantOfImageName('amazon-eks-node-al2023-x86_64-nvidia-1.30-v20250715')).toBe('nvidia');
    expect(variantOfImageName('amazon-eks-gpu-node-1.26-v20250715')).toBe('nvidia');
    expect(variantOfImageName('amazon-eks-node-1.26-v20250715')).toBe('standard');
  });

  it('pins a Karpenter class that ran NVIDIA images to NVIDIA images again', () => {
    const nodeClass = { metadata: { name: 'gpu' }, status: { amis: [{ id: 'ami-1', name: 'amazon-eks-node-al2023-x86_64-nvidia-1.25-v20250715' }] } };
    expect(variantsOfNodeClass(nodeClass)).toEqual(['nvidia']);
    expect(variantsOfNodeClass({ metadata: { name: 'plain' } })).toEqual(['standard']);
  });
});

describe('AMI source of a group', () => {
  it('prefers clusters.yaml: a fixed id for the minor, then a parameter with {minor}', () => {
    expect(configuredAmiSource({ ami: { '1.26': 'ami-0123456789abcdef0' }, amiParameter: '/x/{minor}' }, '1.26')).toMatchObject({ kind: 'image', imageId: 'ami-0123456789abcdef0' });
    expect(configuredAmiSource({ amiParameter: '/my/amis/{minor}/image_id' }, '1.26')).toMatchObject({ kind: 'parameter', parameter: '/my/amis/1.26/image_id', from: 'clusters.yaml' });
    expect(configuredAmiSource({ ami: { '1.27': 'ami-0123456789abcdef0' } }, '1.26')).toBeUndefined();
  });

  it('otherwise follows the group\'s own EKS-optimized family, arch and variant, and says when there is none', () => {
    expect(selfManagedAmiSource('1.26', undefined, { family: 'AL2', arch: 'x86_64', variant: 'nvidia' })).toMatchObject({ parameter: '/aws/service/eks/optimized-ami/1.26/amazon-linux-2-gpu/recommended/image_id', from: 'eks-optimized' });
    expect(selfManagedAmiSource('1.26', undefined, { arch: 'x86_64', variant: 'standard', osImage: 'Ubuntu 22.04.4 LTS' })).toEqual({ kind: 'none', reason: 'its nodes run "Ubuntu 22.04.4 LTS", not an EKS-optimized one' });
  });
});
