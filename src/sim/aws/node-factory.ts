import type { KubeObject } from '../../kube-types/kube-object.js';
import { makeNode } from '../kube/controllers/make-node.js';
import { instanceCapacity } from './ec2/instance-types.js';
import type { SimCluster, SimSubnet, SimWorld } from './world-types.js';

/**
 * Launching and terminating simulated EC2 instances as Kubernetes nodes: every compute type (managed node groups,
 * self-managed groups, Fargate, initial Karpenter nodes) goes through here so IPs come from the right subnet,
 * names look like EKS's (ip-10-0-12-8.us-west-2.compute.internal) and subnets' free-IP counts stay true.
 */

export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface LaunchNodeInput {
  cluster: SimCluster;
  subnet: SimSubnet;
  instanceType: string;
  labels: Record<string, string>;
  taints?: NodeTaint[];
  kubeletVersion: string;
  osImage?: string;
  /** Fargate nodes are named fargate-ip-…; they are not EC2 instances of the account. */
  fargate?: boolean;
  /** When set, the node registers NotReady and turns Ready after this much simulated time (unless a fault says never). */
  readyAfterMs?: number;
  annotations?: Record<string, string>;
  /** The EC2 instance id behind the node (its providerID); generated when not given. */
  instanceId?: string;
  /** EKS Auto Mode names a node after its instance id instead of its private DNS name. */
  nameByInstanceId?: boolean;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function intToIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Picks a free address in the subnet (AWS reserves the first four and the last one). */
export function allocateIp(world: SimWorld, subnet: SimSubnet): string {
  const [base, bits] = subnet.cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = ipToInt(base);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const ip = intToIp(start + 4 + Math.floor(world.random() * (size - 5)));
    if (!subnet.used.has(ip)) {
      subnet.used.add(ip);
      return ip;
    }
  }
  throw new Error(`allocating an IP in ${subnet.id} (${subnet.cidr}): subnet is full; give it a larger CIDR in the scenario`);
}

export function availableIps(subnet: SimSubnet): number {
  return Math.max(0, subnet.baseAvailable - subnet.used.size);
}

export function nodeNameFor(ip: string, region: string): string {
  const host = `ip-${ip.replaceAll('.', '-')}`;
  // us-east-1 private DNS names use the legacy ec2.internal domain.
  return region === 'us-east-1' ? `${host}.ec2.internal` : `${host}.${region}.compute.internal`;
}

/** OS image the kubelet reports for an AMI family. */
export function osImageFor(family: 'AL2' | 'AL2023' | 'Bottlerocket', minor: string): string {
  if (family === 'AL2') return 'Amazon Linux 2';
  if (family === 'Bottlerocket') return `Bottlerocket OS 1.42.0 (aws-k8s-${minor})`;
  return 'Amazon Linux 2023.8.20250715';
}

/** Creates the Node object; returns its name. */
export function launchNode(world: SimWorld, input: LaunchNodeInput): string {
  const { cluster, subnet } = input;
  const ip = allocateIp(world, subnet);
  const instanceId = input.instanceId ?? (input.fargate ? undefined : `i-0${hex(world, 16)}`);
  const name = input.nameByInstanceId && instanceId ? instanceId : `${input.fargate ? 'fargate-' : ''}${nodeNameFor(ip, cluster.region)}`;
  const capacity = input.fargate ? { cpu: '2', memory: '3955652Ki', pods: '1', arch: 'amd64' as const } : instanceCapacity(input.instanceType);
  const waitForReady = input.readyAfterMs !== undefined;
  const node = makeNode({
    name,
    labels: {
      'beta.kubernetes.io/arch': capacity.arch,
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/instance-type': input.instanceType,
      'failure-domain.beta.kubernetes.io/region': cluster.region,
      'failure-domain.beta.kubernetes.io/zone': subnet.zone,
      'topology.ebs.csi.aws.com/zone': subnet.zone,
      'kubernetes.io/arch': capacity.arch,
      ...input.labels,
    },
    taints: input.taints,
    kubeletVersion: input.kubeletVersion,
    instanceType: input.instanceType,
    zone: subnet.zone,
    region: cluster.region,
    capacity: { cpu: capacity.cpu, memory: capacity.memory, pods: capacity.pods },
    providerID: input.fargate ? `aws:///${subnet.zone}/${world.newId().slice(0, 8)}/${name}` : `aws:///${subnet.zone}/${instanceId}`,
    ready: !waitForReady,
    internalIP: ip,
    osImage: input.osImage ?? (input.fargate ? 'Amazon Linux 2' : 'Amazon Linux 2023.8.20250715'),
    creationTimestamp: new Date(world.clock.now()).toISOString(),
  });
  if (capacity.arch === 'arm64') node.status.nodeInfo.architecture = 'arm64';
  if (input.annotations) node.metadata.annotations = { ...node.metadata.annotations, ...input.annotations };
  cluster.store.create('nodes', node);
  if (waitForReady) {
    world.after(input.readyAfterMs ?? 0, () => {
      if (world.faults.nodesNeverReady) return;
      setNodeReady(cluster, name, true);
    });
  }
  return name;
}

function hex(world: SimWorld, length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(world.random() * 16).toString(16);
  return out;
}

export function setNodeReady(cluster: SimCluster, name: string, ready: boolean): void {
  cluster.store.mutate('nodes', name, undefined, (node) => {
    const conditions: Array<Record<string, unknown>> = node.status?.conditions ?? [];
    const condition = conditions.find((c) => c.type === 'Ready');
    const next = ready
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' };
    if (condition) Object.assign(condition, next);
    else conditions.push(next);
  });
}

export function isNodeReady(node: KubeObject): boolean {
  return (node.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
}

/** Marks a node unschedulable the way `kubectl cordon` and EKS do. */
export function cordonNode(cluster: SimCluster, name: string, extraLabels: Record<string, string> = {}): void {
  let changed = false;
  cluster.store.mutate('nodes', name, undefined, (node) => {
    if (!node.spec.unschedulable) changed = true;
    node.spec.unschedulable = true;
    const taints: NodeTaint[] = node.spec.taints ?? [];
    if (!taints.some((t) => t.key === 'node.kubernetes.io/unschedulable')) {
      taints.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' });
    }
    node.spec.taints = taints;
    node.metadata.labels = { ...node.metadata.labels, ...extraLabels };
  });
  if (changed) {
    cluster.store.recordEvent({
      involvedObject: { kind: 'Node', name },
      reason: 'NodeNotSchedulable',
      message: `Node ${name} status is now: NodeNotSchedulable`,
      component: 'kubelet',
    });
  }
}

/**
 * Terminates the instance behind a node: the kubelet stops posting (NotReady), then the cloud node controller
 * removes the Node and the pod garbage collector the pods still bound to it.
 */
export function terminateNode(world: SimWorld, cluster: SimCluster, name: string, afterMs = 10_000): void {
  const node = cluster.store.get('nodes', name);
  if (!node) return;
  setNodeReady(cluster, name, false);
  cluster.store.recordEvent({
    involvedObject: { kind: 'Node', name },
    reason: 'NodeNotReady',
    message: `Node ${name} status is now: NodeNotReady`,
    component: 'node-controller',
  });
  world.after(afterMs, () => removeNode(world, cluster, name));
}

/** Deletes the Node and its pods at once, and frees its IP. */
export function removeNode(world: SimWorld, cluster: SimCluster, name: string): void {
  const node = cluster.store.get('nodes', name);
  if (!node) return;
  // Read uncopied: at high --speed the simulator's CPU is simulated time, and this runs once per terminated node.
  for (const pod of cluster.store.read('pods').filter((p) => p.spec?.nodeName === name)) {
    cluster.store.delete('pods', pod.metadata.name, pod.metadata.namespace);
  }
  cluster.store.delete('nodes', name);
  const ip = (node.status?.addresses ?? []).find((a: { type: string }) => a.type === 'InternalIP')?.address;
  if (ip) for (const subnet of world.subnets.values()) if (subnet.vpcId === cluster.vpcId) subnet.used.delete(ip);
  cluster.store.recordEvent({
    involvedObject: { kind: 'Node', name },
    reason: 'RemovingNode',
    message: `Node ${name} event: Removing Node ${name} from Controller`,
    component: 'node-controller',
  });
}
