import { type Resources } from './resource-quantity.js';

/**
 * The EC2 instance types the simulated Karpenter launches: on-demand prices (us-west-2, USD/hour), vCPUs, memory and
 * the ENI-based max pods of the EKS AMIs. Allocatable follows Karpenter's AWS provider: 7.5 % VM memory overhead,
 * kube-reserved CPU (6 % of the first core, 1 % of the second, 0.5 % of the next two, 0.25 % of the rest) and
 * memory (11 MiB per pod + 255 MiB), and the 100 MiB hard eviction threshold.
 */
export interface InstanceType {
  name: string;
  arch: 'amd64';
  vcpu: number;
  memoryMiB: number;
  maxPods: number;
  onDemandPrice: number;
  manufacturer: 'amd' | 'intel';
  hypervisor: 'nitro' | 'xen';
}

const CATALOG: InstanceType[] = [
  it('c4.large', 2, 3840, 29, 0.1, 'intel', 'xen'),
  it('c5.large', 2, 4096, 29, 0.085, 'intel'),
  it('c5.xlarge', 4, 8192, 58, 0.17, 'intel'),
  it('c6a.large', 2, 4096, 29, 0.0765, 'amd'),
  it('c6a.xlarge', 4, 8192, 58, 0.153, 'amd'),
  it('c6a.2xlarge', 8, 16384, 58, 0.306, 'amd'),
  it('m5.large', 2, 8192, 29, 0.096, 'intel'),
  it('m5.xlarge', 4, 16384, 58, 0.192, 'intel'),
  it('m6a.large', 2, 8192, 29, 0.0864, 'amd'),
  it('m6a.xlarge', 4, 16384, 58, 0.1728, 'amd'),
  it('m6a.2xlarge', 8, 32768, 58, 0.3456, 'amd'),
  it('m6a.4xlarge', 16, 65536, 234, 0.6912, 'amd'),
  it('r6a.large', 2, 16384, 29, 0.1134, 'amd'),
  it('r6a.xlarge', 4, 32768, 58, 0.2268, 'amd'),
];

function it(name: string, vcpu: number, memoryMiB: number, maxPods: number, onDemandPrice: number,
  manufacturer: 'amd' | 'intel', hypervisor: 'nitro' | 'xen' = 'nitro'): InstanceType {
  return { name, arch: 'amd64', vcpu, memoryMiB, maxPods, onDemandPrice, manufacturer, hypervisor };
}

// Spot usually costs about a third of on-demand; only the ordering matters to the sim.
const SPOT_DISCOUNT = 0.35;

export function allInstanceTypes(): readonly InstanceType[] {
  return CATALOG;
}

export function instanceTypeNamed(name: string): InstanceType | undefined {
  return CATALOG.find((type) => type.name === name);
}

export function priceOf(type: InstanceType, capacityType: string): number {
  return capacityType === 'spot' ? type.onDemandPrice * SPOT_DISCOUNT : type.onDemandPrice;
}

const MiB = 1024 * 1024;

export function capacityOf(type: InstanceType): Resources {
  return { cpu: type.vcpu * 1000, memory: Math.floor(type.memoryMiB * (1 - 0.075)) * MiB, pods: type.maxPods };
}

export function allocatableOf(type: InstanceType): Resources {
  const capacity = capacityOf(type);
  const cores = type.vcpu;
  const reservedCpu = 60 + (cores > 1 ? 10 : 0) + Math.min(Math.max(cores - 2, 0), 2) * 5 + Math.max(cores - 4, 0) * 2.5;
  const reservedMemory = (11 * type.maxPods + 255 + 100) * MiB;
  return { cpu: capacity.cpu - Math.round(reservedCpu), memory: capacity.memory - reservedMemory, pods: capacity.pods };
}

/** The labels Karpenter's AWS provider puts on nodes of this type (karpenter.k8s.aws/instance-*). */
export function instanceTypeLabels(type: InstanceType): Record<string, string> {
  const [family, size] = type.name.split('.');
  const generation = /[0-9]+/.exec(family)?.[0] ?? '';
  return {
    'karpenter.k8s.aws/instance-category': family.replace(/[0-9].*$/, ''),
    'karpenter.k8s.aws/instance-family': family,
    'karpenter.k8s.aws/instance-generation': generation,
    'karpenter.k8s.aws/instance-size': size,
    'karpenter.k8s.aws/instance-cpu': String(type.vcpu),
    'karpenter.k8s.aws/instance-cpu-manufacturer': type.manufacturer,
    'karpenter.k8s.aws/instance-memory': String(type.memoryMiB),
    'karpenter.k8s.aws/instance-hypervisor': type.hypervisor,
    'node.kubernetes.io/instance-type': type.name,
    'kubernetes.io/arch': type.arch,
    'kubernetes.io/os': 'linux',
  };
}

/** "m6a.large, c6a.large and 3 other(s)" — how Karpenter lists instance-type options in its logs. */
export function describeInstanceTypes(names: string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} other(s)` : shown;
}
