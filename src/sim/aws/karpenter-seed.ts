import type { KubeObject } from '../../ports/kube-port.js';
import { resolveAmis } from '../karpenter/ami-resolution.js';
import { instanceTypeLabels, instanceTypeNamed } from '../karpenter/instance-types.js';
import {
  CAPACITY_TYPE_LABEL,
  INITIALIZED_LABEL,
  NODECLASS_HASH_ANNOTATION,
  NODECLASS_HASH_VERSION,
  NODECLASS_HASH_VERSION_ANNOTATION,
  NODECLASS_LABEL,
  NODEPOOL_HASH_ANNOTATION,
  NODEPOOL_HASH_VERSION,
  NODEPOOL_HASH_VERSION_ANNOTATION,
  NODEPOOL_LABEL,
  REGISTERED_LABEL,
  TERMINATION_FINALIZER,
} from '../karpenter/karpenter-keys.js';
import { nodeClassHash, nodePoolHash } from '../karpenter/template-hash.js';
import type { ScenarioCluster } from '../scenario/scenario-schema.js';
import { launchNode } from './node-factory.js';
import { amiIdFor, kubeletVersionFor, minorOfAmi } from './version-catalog.js';
import type { SimCluster, SimWorld } from './world-types.js';

/**
 * The Karpenter objects a scenario starts with: NodePools and EC2NodeClasses as written, and the nodes Karpenter
 * had already launched (a NodeClaim plus its Node each, as if provisioned and initialized earlier). The Karpenter
 * controller takes over from there.
 */
export function seedKarpenter(world: SimWorld, cluster: SimCluster, spec: NonNullable<ScenarioCluster['karpenter']>): void {
  for (const nodeClass of spec.ec2NodeClasses) cluster.store.create('ec2nodeclasses', structuredClone(nodeClass) as KubeObject);
  for (const nodePool of spec.nodePools) cluster.store.create('nodepools', structuredClone(nodePool) as KubeObject);
  for (const node of spec.nodes) seedNodeClaim(world, cluster, node);
}

const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function claimName(world: SimWorld, pool: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_CHARS[Math.floor(world.random() * SUFFIX_CHARS.length)];
  return `${pool}-${suffix}`;
}

function seedNodeClaim(
  world: SimWorld,
  cluster: SimCluster,
  input: { nodePool: string; instanceType: string; zone: string; capacityType: 'on-demand' | 'spot' },
): void {
  const nodePool = cluster.store.get('nodepools', input.nodePool);
  if (!nodePool) throw new Error(`scenario cluster ${cluster.name}: karpenter.nodes names NodePool "${input.nodePool}", which the scenario does not define`);
  const classRef = nodePool.spec?.template?.spec?.nodeClassRef?.name ?? 'default';
  const nodeClass = cluster.store.get('ec2nodeclasses', classRef);
  const imageId = resolveAmis(nodeClass?.spec?.amiSelectorTerms, cluster.version)[0]?.id ?? amiIdFor(cluster.version, 'AL2023');
  const minor = minorOfAmi(imageId) ?? cluster.version;
  const subnet = [...world.subnets.values()].find((s) => s.vpcId === cluster.vpcId && s.zone === input.zone);
  if (!subnet) throw new Error(`scenario cluster ${cluster.name}: karpenter.nodes zone ${input.zone} has no subnet`);
  const type = instanceTypeNamed(input.instanceType);
  const typeLabels = type ? instanceTypeLabels(type) : { 'node.kubernetes.io/instance-type': input.instanceType };
  const template = nodePool.spec?.template ?? {};
  const name = claimName(world, input.nodePool);
  const labels: Record<string, string> = {
    ...typeLabels,
    ...(template.metadata?.labels ?? {}),
    [NODEPOOL_LABEL]: input.nodePool,
    [NODECLASS_LABEL]: classRef,
    [CAPACITY_TYPE_LABEL]: input.capacityType,
    'topology.kubernetes.io/zone': input.zone,
    'topology.kubernetes.io/region': cluster.region,
  };
  const taints = template.spec?.taints ?? [];
  const nodeName = launchNode(world, {
    cluster,
    subnet,
    instanceType: input.instanceType,
    labels: { ...labels, [REGISTERED_LABEL]: 'true', [INITIALIZED_LABEL]: 'true' },
    taints,
    kubeletVersion: kubeletVersionFor(minor),
    annotations: { 'karpenter.sh/nodeclaim': name },
  });
  const node = cluster.store.get('nodes', nodeName);
  const now = new Date(world.clock.now()).toISOString();
  const condition = (type: string) => ({ type, status: 'True', reason: type, message: '', lastTransitionTime: now });
  cluster.store.create('nodeclaims', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels,
      annotations: {
        [NODEPOOL_HASH_ANNOTATION]: nodePoolHash(nodePool),
        [NODEPOOL_HASH_VERSION_ANNOTATION]: NODEPOOL_HASH_VERSION,
        ...(nodeClass
          ? { [NODECLASS_HASH_ANNOTATION]: nodeClassHash(nodeClass), [NODECLASS_HASH_VERSION_ANNOTATION]: NODECLASS_HASH_VERSION }
          : {}),
      },
      finalizers: [TERMINATION_FINALIZER],
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: input.nodePool, uid: nodePool.metadata.uid, blockOwnerDeletion: true } as unknown as { kind: string; name: string }],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: classRef },
      requirements: template.spec?.requirements ?? [],
      taints,
      expireAfter: template.spec?.expireAfter ?? '720h',
      resources: { requests: {} },
    },
    status: {
      nodeName,
      providerID: node?.spec?.providerID,
      imageID: imageId,
      capacity: node?.status?.capacity,
      allocatable: node?.status?.allocatable,
      conditions: ['Launched', 'Registered', 'Initialized', 'Ready'].map(condition),
    },
  });
}
