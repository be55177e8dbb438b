/**
 * Builders for the objects Karpenter creates — NodeClaims and the Nodes their instances register — shared by the
 * live controller and by scenario seeding so both produce identical shapes (karpenter.md, NodeClaim example).
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import { describeAmi, kubeletVersionFor, minorOfAmi } from '../../aws/eks/version-catalog.js';
import { makeNode } from '../../kube/controllers/make-node.js';
import { nodeClassFamily } from '../ami-resolution.js';
import { allocatableOf, capacityOf } from './instance-types.js';
import {
  INITIALIZED_LABEL, NODECLASS_HASH_ANNOTATION, NODECLASS_HASH_VERSION, NODECLASS_HASH_VERSION_ANNOTATION,
  NODEPOOL_HASH_ANNOTATION, NODEPOOL_HASH_VERSION, NODEPOOL_HASH_VERSION_ANNOTATION, NODEPOOL_LABEL, REGISTERED_LABEL, TERMINATION_FINALIZER,
} from '../karpenter-keys.js';
import { instanceTypeOptions, poolLabels, poolRequirements, type Offering } from './offerings.js';
import { formatResourceList, type Resources } from './resource-quantity.js';
import type { Taint } from './scheduling-rules.js';
import { setCondition } from '../status-conditions.js';
import { nodeClassHash, nodePoolHash } from '../template-hash.js';

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'; // the apiserver's generateName alphabet

export function randomSuffix(random: () => number, length = 5): string {
  return Array.from({ length }, () => NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length)]).join('');
}

export function hostDomain(region: string): string {
  return region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
}

export function randomInstanceId(random: () => number): string {
  return `i-0${Array.from({ length: 16 }, () => Math.floor(random() * 16).toString(16)).join('')}`;
}

export function newNodeClaim(opts: { name: string; nodePool: KubeObject; nodeClass: KubeObject; offerings: Offering[]; requests: Resources; now: number }): KubeObject {
  const { nodePool, nodeClass } = opts;
  const templateSpec = nodePool.spec?.template?.spec ?? {};
  const claim: KubeObject = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: opts.name,
      labels: poolLabels(nodePool),
      annotations: {
        ...(nodePool.spec?.template?.metadata?.annotations ?? {}),
        [NODEPOOL_HASH_ANNOTATION]: nodePoolHash(nodePool),
        [NODEPOOL_HASH_VERSION_ANNOTATION]: NODEPOOL_HASH_VERSION,
        [NODECLASS_HASH_ANNOTATION]: nodeClassHash(nodeClass),
        [NODECLASS_HASH_VERSION_ANNOTATION]: NODECLASS_HASH_VERSION,
      },
      finalizers: [TERMINATION_FINALIZER],
      ownerReferences: [
        { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: nodePool.metadata.name, uid: nodePool.metadata.uid, blockOwnerDeletion: true } as never,
      ],
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass.metadata.name, ...(templateSpec.nodeClassRef ?? {}) },
      expireAfter: templateSpec.expireAfter ?? '720h',
      ...(templateSpec.terminationGracePeriod ? { terminationGracePeriod: templateSpec.terminationGracePeriod } : {}),
      requirements: [
        ...poolRequirements(nodePool).filter((r) => r.key !== 'node.kubernetes.io/instance-type'),
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: instanceTypeOptions(opts.offerings) },
        { key: NODEPOOL_LABEL, operator: 'In', values: [nodePool.metadata.name] },
      ],
      resources: { requests: formatResourceList(opts.requests) },
      ...(templateSpec.taints?.length ? { taints: templateSpec.taints } : {}),
      ...(templateSpec.startupTaints?.length ? { startupTaints: templateSpec.startupTaints } : {}),
    },
    status: {},
  };
  for (const type of ['Launched', 'Registered', 'Initialized', 'Ready']) setCondition(claim, { type, status: 'Unknown' }, opts.now);
  return claim;
}

/** Fills in what the launch (EC2 CreateFleet) decides: instance, image, capacity and the offering's labels. */
export function markLaunched(claim: KubeObject, opts: { offering: Offering; imageID: string; providerID: string; now: number }): void {
  const { offering } = opts;
  claim.metadata.labels = { ...(claim.metadata.labels ?? {}), ...offering.labels };
  claim.status ??= {};
  claim.status.providerID = opts.providerID;
  claim.status.imageID = opts.imageID;
  claim.status.capacity = { ...formatResourceList(capacityOf(offering.instanceType)), 'ephemeral-storage': '20Gi' };
  claim.status.allocatable = { ...formatResourceList(allocatableOf(offering.instanceType)), 'ephemeral-storage': '17Gi' };
  setCondition(claim, { type: 'Launched', status: 'True' }, opts.now);
}

const OS_IMAGES = { AL2: 'Amazon Linux 2', AL2023: 'Amazon Linux 2023.7.20250715', Bottlerocket: 'Bottlerocket OS 1.42.0 (aws-k8s)' };
const KERNELS = { AL2: '5.10.238-231.953.amzn2.x86_64', AL2023: '6.1.141-155.222.amzn2023.x86_64', Bottlerocket: '6.1.141' };

/** The Node the instance's kubelet registers: still carrying karpenter.sh/unregistered and not yet Ready. */
export function registeringNode(opts: {
  claim: KubeObject; nodeClass: KubeObject | undefined; offering: Offering; nodeName: string; internalIP: string;
  region: string; clusterMinor: string; ready: boolean; extraTaints: Taint[];
}): KubeObject {
  const { claim, offering } = opts;
  const imageID: string = claim.status?.imageID ?? '';
  const family = describeAmi(imageID)?.family ?? nodeClassFamily(opts.nodeClass?.spec);
  const minor = minorOfAmi(imageID) ?? opts.clusterMinor;
  const node = makeNode({
    name: opts.nodeName,
    labels: { ...(claim.metadata.labels ?? {}), ...(opts.ready ? { [REGISTERED_LABEL]: 'true', [INITIALIZED_LABEL]: 'true' } : {}) },
    taints: [...(claim.spec?.taints ?? []), ...(opts.ready ? [] : [...(claim.spec?.startupTaints ?? []), ...opts.extraTaints])],
    kubeletVersion: kubeletVersionFor(minor),
    instanceType: offering.instanceType.name,
    zone: offering.zone,
    region: opts.region,
    capacity: formatResourceList(capacityOf(offering.instanceType)),
    providerID: claim.status?.providerID,
    ready: opts.ready,
    internalIP: opts.internalIP,
    osImage: OS_IMAGES[family],
  });
  node.status.allocatable = formatResourceList(allocatableOf(offering.instanceType));
  node.status.nodeInfo.kernelVersion = KERNELS[family];
  if (opts.ready) {
    node.metadata.finalizers = [TERMINATION_FINALIZER];
    node.metadata.ownerReferences = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: claim.metadata.name, uid: claim.metadata.uid, blockOwnerDeletion: true } as never];
  }
  return node;
}

export function nodeNameFor(internalIP: string, region: string): string {
  return `ip-${internalIP.replaceAll('.', '-')}.${hostDomain(region)}`;
}

/** A private IP in the zone's /20 of a 10.0.0.0/16 VPC (a → 10.0.0-15.x, b → 10.0.16-31.x, …), as eksctl lays them out. */
export function randomInternalIP(random: () => number, zone: string): string {
  const zoneIndex = Math.max(0, Math.min(3, zone.charCodeAt(zone.length - 1) - 'a'.charCodeAt(0)));
  return `10.0.${zoneIndex * 16 + Math.floor(random() * 16)}.${1 + Math.floor(random() * 254)}`;
}
