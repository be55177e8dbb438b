import type { KubeObject } from '../../src/ports/kube-port.js';
import {
  readOk,
  type AddonInfo,
  type ClusterSnapshot,
  type InsightInfo,
  type NodegroupInfo,
} from '../../src/planning/cluster-snapshot.js';

/**
 * A healthy cluster snapshot (eksup-style mocks): `demo` at 1.30, ACTIVE, standard support with months left, three
 * AZs of roomy subnets, one AL2023 managed node group of two 1.30 nodes, add-ons at their defaults, every insight
 * passing, a 2-replica web app behind a PDB that allows one disruption, no Karpenter, no Fargate. Each test
 * changes the one thing it is about.
 */
export const DAY = 24 * 3600_000;
export const NOW = Date.parse('2025-06-15T00:00:00Z');

export function kubelet(minor: string): string {
  return `v${minor}.9-eks-0123abc`;
}

export function node(name: string, minor: string, labels: Record<string, string> = { 'eks.amazonaws.com/nodegroup': 'ng-a' }, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    metadata: { name, labels: { 'topology.kubernetes.io/zone': 'us-west-2a', ...labels }, ...(extra.metadata ?? {}) },
    ...(extra.spec ? { spec: extra.spec } : {}),
    status: { nodeInfo: { kubeletVersion: kubelet(minor), osImage: 'Amazon Linux 2023.8.20250715', architecture: 'amd64' } },
  } as KubeObject;
}

export function pod(namespace: string, name: string, nodeName: string | undefined, labels: Record<string, string>, owner?: { kind: string; name: string }, extra: Record<string, any> = {}): KubeObject {
  return {
    metadata: {
      name,
      namespace,
      labels,
      ...(owner ? { ownerReferences: [{ kind: owner.kind, name: owner.name, controller: true }] } : {}),
      ...(extra.metadata ?? {}),
    },
    spec: { nodeName, ...(extra.spec ?? {}) },
    status: { phase: 'Running' },
  } as KubeObject;
}

/** A pod of a Deployment, as the ReplicaSet names it. */
export function deploymentPod(namespace: string, deployment: string, index: number, nodeName: string | undefined, labels: Record<string, string>, extra: Record<string, any> = {}): KubeObject {
  return pod(namespace, `${deployment}-5b97f-${index}`, nodeName, { ...labels, 'pod-template-hash': '5b97f' }, { kind: 'ReplicaSet', name: `${deployment}-5b97f` }, extra);
}

export function deployment(namespace: string, name: string, replicas: number, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace, labels }, spec: { replicas, selector: { matchLabels: { app: name } } } } as KubeObject;
}

export function pdb(namespace: string, name: string, selector: Record<string, string>, spec: Record<string, unknown>, disruptionsAllowed?: number): KubeObject {
  return {
    metadata: { name, namespace },
    spec: { selector: { matchLabels: selector }, ...spec },
    ...(disruptionsAllowed !== undefined ? { status: { disruptionsAllowed } } : {}),
  } as KubeObject;
}

export function nodegroup(name: string, overrides: Partial<NodegroupInfo> = {}): NodegroupInfo {
  return {
    name,
    status: 'ACTIVE',
    version: '1.30',
    releaseVersion: '1.30.9-20250715',
    amiType: 'AL2023_x86_64_STANDARD',
    capacityType: 'ON_DEMAND',
    instanceTypes: ['m5.large'],
    scaling: { min: 1, max: 4, desired: 2 },
    maxUnavailable: 1,
    subnets: ['subnet-a', 'subnet-b', 'subnet-c'],
    labels: {},
    taints: [],
    healthIssues: [],
    tags: {},
    ...overrides,
  };
}

/** An add-on whose catalog lists `versions` for every minor in `minors`, the first being the default. */
export function addon(name: string, version: string, catalog: Record<string, string[]>, overrides: Partial<AddonInfo> = {}): AddonInfo {
  return {
    name,
    version,
    status: 'ACTIVE',
    healthIssues: [],
    tags: {},
    catalog: Object.fromEntries(Object.entries(catalog).map(([minor, versions]) => [minor, { versions, defaultVersion: versions[0] }])),
    catalogErrors: [],
    ...overrides,
  };
}

export function insight(overrides: Partial<InsightInfo> = {}): InsightInfo {
  return { id: 'ins-1', name: 'Kubelet version skew', category: 'UPGRADE_READINESS', kubernetesVersion: '1.31', status: 'PASSING', resources: [], deprecations: [], ...overrides };
}

const versions = ['1.29', '1.30', '1.31', '1.32', '1.33'].map((version, i) => ({
  version,
  support: 'standard' as const,
  releaseDate: NOW - (400 - i * 120) * DAY,
  endOfStandardSupport: NOW + (200 + i * 120) * DAY,
  endOfExtendedSupport: NOW + (565 + i * 120) * DAY,
}));

export function healthySnapshot(): ClusterSnapshot {
  const nodes = [node('ip-10-0-1-1', '1.30'), node('ip-10-0-2-2', '1.30', { 'eks.amazonaws.com/nodegroup': 'ng-a', 'topology.kubernetes.io/zone': 'us-west-2b' })];
  return {
    name: 'demo',
    region: 'us-west-2',
    readAt: NOW,
    cluster: readOk({ name: 'demo', version: '1.30', platformVersion: 'eks.28', status: 'ACTIVE', subnetIds: ['subnet-a', 'subnet-b', 'subnet-c'], tags: {}, healthIssues: [], supportType: 'EXTENDED' }),
    versions: readOk(versions.map((v) => ({ ...v }))),
    updates: readOk([]),
    nodegroups: readOk([nodegroup('ng-a')]),
    addons: readOk([
      addon('coredns', 'v1.11.3-eksbuild.1', { '1.30': ['v1.11.3-eksbuild.1', 'v1.11.1-eksbuild.4'], '1.31': ['v1.11.3-eksbuild.1'], '1.32': ['v1.11.4-eksbuild.2', 'v1.11.3-eksbuild.1'] }),
      addon('kube-proxy', 'v1.30.9-eksbuild.3', { '1.30': ['v1.30.9-eksbuild.3'], '1.31': ['v1.31.3-eksbuild.2'], '1.32': ['v1.32.0-eksbuild.2'] }),
      addon('vpc-cni', 'v1.19.2-eksbuild.1', { '1.30': ['v1.19.2-eksbuild.1', 'v1.18.6-eksbuild.1'], '1.31': ['v1.19.2-eksbuild.1', 'v1.18.6-eksbuild.1'], '1.32': ['v1.19.2-eksbuild.1'] }),
    ]),
    insights: readOk([insight()]),
    fargateProfiles: readOk([]),
    subnets: readOk(['a', 'b', 'c'].map((az) => ({ subnetId: `subnet-${az}`, availabilityZone: `us-west-2${az}`, availableIpAddressCount: 200 }))),
    kube: {
      nodes: readOk(nodes),
      pods: readOk([
        deploymentPod('shop', 'web', 1, 'ip-10-0-1-1', { app: 'web' }),
        deploymentPod('shop', 'web', 2, 'ip-10-0-2-2', { app: 'web' }),
      ]),
      deployments: readOk([deployment('shop', 'web', 2)]),
      statefulsets: readOk([]),
      pdbs: readOk([pdb('shop', 'web-pdb', { app: 'web' }, { minAvailable: 1 }, 1)]),
      pvcs: readOk([]),
      hpas: readOk([]),
      karpenter: readOk(undefined),
    },
    amis: [],
  };
}

/** Replaces one Kubernetes area's value. */
export function withKube(snapshot: ClusterSnapshot, area: keyof ClusterSnapshot['kube'], value: unknown): ClusterSnapshot {
  return { ...snapshot, kube: { ...snapshot.kube, [area]: readOk(value) } };
}

export function codes(findings: Array<{ code: string; severity: string }>): string[] {
  return findings.map((f) => `${f.code}:${f.severity}`);
}

/** A cluster with every kind of compute: two node groups, a Karpenter pool on a pinned AMI, self-managed nodes, Fargate. */
export function mixedCluster(): ClusterSnapshot {
  let s = healthySnapshot();
  s.nodegroups = readOk([nodegroup('ng-a'), nodegroup('orders', { scaling: { min: 1, max: 2, desired: 1 } })]);
  const fargate = node('fargate-ip-1', '1.30', { 'eks.amazonaws.com/compute-type': 'fargate', 'eks.amazonaws.com/fargate-profile': 'fp' });
  s = withKube(s, 'nodes', [
    ...(s.kube.nodes as any).value,
    node('ip-orders', '1.30', { 'eks.amazonaws.com/nodegroup': 'orders' }),
    node('karp-1', '1.30', { 'karpenter.sh/nodepool': 'default' }),
    node('karp-2', '1.30', { 'karpenter.sh/nodepool': 'default' }),
    node('sm-1', '1.30', { 'node.kubernetes.io/lifecycle': 'self-managed', 'alpha.eksctl.io/nodegroup-name': 'carts' }, { spec: { providerID: 'aws:///us-west-2a/i-0c0ffee000000001' } }),
    fargate,
  ]);
  // The self-managed node's Auto Scaling group (issue 13): the plan names it for the job to roll.
  s.autoScalingGroups = readOk([{
    name: 'carts', minSize: 1, maxSize: 2, desiredCapacity: 1, instanceIds: ['i-0c0ffee000000001'], protectedInstances: [],
    launchTemplate: { id: 'lt-0c0ffee', name: 'carts', groupVersion: '1', defaultVersion: 1, latestVersion: 1 },
    amis: [{ minor: '1.31', parameter: '/p/1.31', imageId: 'ami-0131' }, { minor: '1.32', parameter: '/p/1.32', imageId: 'ami-0132' }],
  }]);
  s = withKube(s, 'pods', [...(s.kube.pods as any).value, deploymentPod('assets', 'assets', 1, 'fargate-ip-1', { app: 'assets' })]);
  s.kube = {
    ...s.kube,
    karpenter: readOk({
      nodePools: [{ metadata: { name: 'default' }, spec: { disruption: { budgets: [{ nodes: '10%' }] }, template: { spec: { nodeClassRef: { name: 'default' } } } } }],
      nodeClaims: [],
      nodeClasses: [{ metadata: { name: 'default' }, spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0130' }] } }],
    }),
  };
  s.amis = [
    { minor: '1.30', family: 'AL2023', arch: 'x86_64', parameter: '/p/1.30', imageId: 'ami-0130' },
    { minor: '1.31', family: 'AL2023', arch: 'x86_64', parameter: '/p/1.31', imageId: 'ami-0131' },
    { minor: '1.32', family: 'AL2023', arch: 'x86_64', parameter: '/p/1.32', imageId: 'ami-0132' },
  ];
  return s;
}

