import type { KubeObject } from '../../../kube-types/kube-object.js';
import { launchNode, osImageFor, type NodeTaint } from '../node-factory.js';
import { imageFacts } from '../ec2/asg-instances.js';
import { amiIdFor, kubeletVersionFor, type AmiArch, type AmiFamily } from './version-catalog.js';
import type { EksTaintEffect, SimCluster, SimNodegroup, SimSubnet, SimWorld } from '../world-types.js';

/**
 * What a managed node group's instances look like: which AMI its launch template points at, the labels EKS puts on
 * its nodes (eks.amazonaws.com/nodegroup, nodegroup-image, capacityType, sourceLaunchTemplateId/Version) and
 * which subnet the next instance lands in.
 */

export const NODEGROUP_LABEL = 'eks.amazonaws.com/nodegroup';
export const NODEGROUP_IMAGE_LABEL = 'eks.amazonaws.com/nodegroup-image';
export const CAPACITY_TYPE_LABEL = 'eks.amazonaws.com/capacityType';
export const SOURCE_LT_ID_LABEL = 'eks.amazonaws.com/sourceLaunchTemplateId';
export const SOURCE_LT_VERSION_LABEL = 'eks.amazonaws.com/sourceLaunchTemplateVersion';
export const EXCLUDE_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** AMI family and architecture behind an EKS amiType (CUSTOM: whatever the launch template's AMI is). */
export function familyOfAmiType(amiType: string): { family: AmiFamily; arch: AmiArch } {
  const arch: AmiArch = amiType.includes('ARM') ? 'arm64' : 'x86_64';
  if (amiType.startsWith('AL2023')) return { family: 'AL2023', arch };
  if (amiType.startsWith('BOTTLEROCKET')) return { family: 'Bottlerocket', arch };
  return { family: 'AL2', arch };
}

/** The image a node group's instances boot: the EKS-optimized AMI of `version`, or its launch template's AMI. */
export interface NodegroupImage {
  imageId: string;
  minor: string;
  launchTemplateVersion?: string;
}

export function nodegroupImage(world: SimWorld, ng: SimNodegroup, version = ng.version, ltVersion = ng.launchTemplate?.version): NodegroupImage {
  if (ng.amiType === 'CUSTOM' && ng.launchTemplate) {
    const lt = world.launchTemplates.get(ng.launchTemplate.id);
    const entry = lt?.versions.get(Number(ltVersion));
    const imageId = entry?.imageId ?? 'ami-00000000000000000';
    return { imageId, minor: imageFacts(world, imageId)?.minor ?? version, launchTemplateVersion: ltVersion };
  }
  const { family, arch } = familyOfAmiType(ng.amiType);
  return { imageId: amiIdFor(version, family, arch), minor: version, launchTemplateVersion: ltVersion };
}

export function nodesOfNodegroup(cluster: SimCluster, ngName: string): KubeObject[] {
  return cluster.store.list('nodes').filter((node) => node.metadata.labels?.[NODEGROUP_LABEL] === ngName);
}

export function k8sTaintEffect(effect: EksTaintEffect): NodeTaint['effect'] {
  return effect === 'NO_EXECUTE' ? 'NoExecute' : effect === 'PREFER_NO_SCHEDULE' ? 'PreferNoSchedule' : 'NoSchedule';
}

/** The subnet with the fewest of this group's nodes, so instances spread across AZs like an ASG does. */
export function pickSubnet(world: SimWorld, cluster: SimCluster, ng: SimNodegroup): SimSubnet {
  const subnets = ng.subnets.map((id) => world.subnets.get(id)).filter((s): s is SimSubnet => Boolean(s));
  if (!subnets.length) throw new Error(`node group ${ng.name}: none of its subnets ${ng.subnets.join(', ')} exist`);
  const nodes = nodesOfNodegroup(cluster, ng.name);
  const countIn = (zone: string) => nodes.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] === zone).length;
  return subnets.reduce((best, s) => (countIn(s.zone) < countIn(best.zone) ? s : best), subnets[0]);
}

/** Launches one instance of the node group booted from `image`. */
export function launchNodegroupNode(
  world: SimWorld,
  cluster: SimCluster,
  ng: SimNodegroup,
  image: NodegroupImage,
  options: { readyAfterMs?: number } = {},
): string {
  const family = ng.amiType === 'CUSTOM' ? 'AL2' : familyOfAmiType(ng.amiType).family;
  const instanceType = ng.instanceTypes[Math.floor(world.random() * ng.instanceTypes.length)] ?? 'm5.large';
  const labels: Record<string, string> = {
    [CAPACITY_TYPE_LABEL]: ng.capacityType,
    [NODEGROUP_LABEL]: ng.name,
    [NODEGROUP_IMAGE_LABEL]: image.imageId,
    'k8s.io/cloud-provider-aws': cluster.oidcId.slice(0, 32).toLowerCase(),
    ...ng.labels,
  };
  if (ng.launchTemplate) {
    labels[SOURCE_LT_ID_LABEL] = ng.launchTemplate.id;
    labels[SOURCE_LT_VERSION_LABEL] = image.launchTemplateVersion ?? ng.launchTemplate.version;
  }
  return launchNode(world, {
    cluster,
    subnet: pickSubnet(world, cluster, ng),
    instanceType,
    labels,
    taints: ng.taints.map((t) => ({ key: t.key, value: t.value, effect: k8sTaintEffect(t.effect) })),
    kubeletVersion: kubeletVersionFor(image.minor),
    osImage: osImageFor(family, image.minor),
    readyAfterMs: options.readyAfterMs,
  });
}
