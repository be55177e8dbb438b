/**
 * Node capacity per EC2 instance type as the kubelet reports it (allocatable ≈ capacity here; pods = the VPC CNI's
 * ENI-based max pods). Enough types for the scenarios and Karpenter's usual picks; unknown types get m5.large's.
 */
export interface InstanceCapacity {
  cpu: string;
  memory: string;
  pods: string;
  arch: 'amd64' | 'arm64';
}

const TYPES: Record<string, InstanceCapacity> = {
  't3.medium': { cpu: '2', memory: '3943372Ki', pods: '17', arch: 'amd64' },
  't3.large': { cpu: '2', memory: '7941804Ki', pods: '35', arch: 'amd64' },
  'm5.large': { cpu: '2', memory: '7910360Ki', pods: '29', arch: 'amd64' },
  'm5.xlarge': { cpu: '4', memory: '15950828Ki', pods: '58', arch: 'amd64' },
  'm6a.large': { cpu: '2', memory: '7910360Ki', pods: '29', arch: 'amd64' },
  'm6i.large': { cpu: '2', memory: '7910360Ki', pods: '29', arch: 'amd64' },
  'm6g.large': { cpu: '2', memory: '7910360Ki', pods: '29', arch: 'arm64' },
  'c4.large': { cpu: '2', memory: '3780860Ki', pods: '29', arch: 'amd64' },
  'c5.large': { cpu: '2', memory: '3943360Ki', pods: '29', arch: 'amd64' },
  'c6a.large': { cpu: '2', memory: '3943360Ki', pods: '29', arch: 'amd64' },
  'c5.xlarge': { cpu: '4', memory: '7766420Ki', pods: '58', arch: 'amd64' },
  'r4.large': { cpu: '2', memory: '15919860Ki', pods: '29', arch: 'amd64' },
};

export function instanceCapacity(type: string): InstanceCapacity {
  return TYPES[type] ?? TYPES['m5.large'];
}
