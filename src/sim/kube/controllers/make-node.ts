import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * A Node object as the kubelet of an EKS worker registers it. Used by every simulated compute type (managed node
 * groups, Karpenter, self-managed, Fargate) so nodes look alike to kubectl and to the bot.
 */
export interface NodeSpecInput {
  name: string; // e.g. ip-192-168-12-34.us-west-2.compute.internal, fargate-ip-…
  labels: Record<string, string>; // compute-type labels (eks.amazonaws.com/nodegroup, karpenter.sh/nodepool, …)
  taints?: Array<{ key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }>;
  kubeletVersion: string; // v1.30.14-eks-f69f56f
  instanceType: string;
  zone: string;
  region: string;
  capacity?: { cpu: string; memory: string; pods: string };
  providerID?: string;
  ready?: boolean;
  unschedulable?: boolean;
  osImage?: string;
  internalIP?: string;
  creationTimestamp?: string;
}

export function makeNode(input: NodeSpecInput): KubeObject {
  const capacity = input.capacity ?? { cpu: '2', memory: '8023360Ki', pods: '29' };
  const ready = input.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: input.name,
      ...(input.creationTimestamp ? { creationTimestamp: input.creationTimestamp } : {}),
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': input.name,
        'node.kubernetes.io/instance-type': input.instanceType,
        'topology.kubernetes.io/region': input.region,
        'topology.kubernetes.io/zone': input.zone,
        ...input.labels,
      },
      annotations: { 'alpha.kubernetes.io/provided-node-ip': input.internalIP ?? '192.168.0.1' },
    },
    spec: {
      providerID: input.providerID ?? `aws:///${input.zone}/i-${input.name.replace(/[^0-9a-f]/g, '').padEnd(17, '0').slice(0, 17)}`,
      ...(input.taints && input.taints.length ? { taints: input.taints } : {}),
      ...(input.unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      capacity,
      allocatable: capacity,
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
        { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure' },
        { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID' },
        ready
          ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
          : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'container runtime network not ready' },
      ],
      addresses: [
        { type: 'InternalIP', address: input.internalIP ?? '192.168.0.1' },
        { type: 'Hostname', address: input.name },
        { type: 'InternalDNS', address: input.name },
      ],
      nodeInfo: {
        kubeletVersion: input.kubeletVersion,
        kubeProxyVersion: input.kubeletVersion,
        osImage: input.osImage ?? 'Amazon Linux 2',
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '5.10.238-231.953.amzn2.x86_64',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}
