import type { SimKubeStore } from '../../kube/kube-store.js';
import type { ScenarioCluster, ScenarioNodegroup } from '../../scenario/scenario-schema.js';
import { seedKarpenter } from '../karpenter-seed.js';
import { seedManifests } from '../kube-seed.js';
import { buildSelfManagedGroup } from '../ec2/build-self-managed.js';
import { hexOf } from '../hex-of.js';
import { launchNodegroupNode, nodegroupImage } from './nodegroup-nodes.js';
import { autoModeNodePool, launchAutoModeNode } from './auto-mode.js';
import { recordInPlaceUpgrade } from './rollback-window.js';
import { latestPlatformVersionFor, minorOfAmi, nextMinor, releaseVersionFor } from './version-catalog.js';
import type { SimCluster, SimNodegroup, SimSubnet, SimWorld } from '../world-types.js';

/**
 * Turns one scenario cluster into simulated AWS resources (VPC subnets, cluster, node groups and their instances,
 * self-managed instances, Fargate profiles, add-ons, launch templates) and its Kubernetes store with the lab's
 * objects. Ids are derived from names so the same scenario always yields the same ids.
 */
export function buildCluster(world: SimWorld, spec: ScenarioCluster, store: SimKubeStore): SimCluster {
  const { accountId } = world;
  const region = spec.region;
  const vpcId = spec.vpc?.id ?? `vpc-0${hexOf(`${spec.name}/vpc`, 16)}`;
  const subnets = createSubnets(world, spec, vpcId);
  const oidcId = hexOf(`${spec.name}/oidc`, 32).toUpperCase();
  const now = world.clock.now();
  const cluster: SimCluster = {
    name: spec.name,
    region,
    arn: `arn:aws:eks:${region}:${accountId}:cluster/${spec.name}`,
    version: spec.version,
    platformVersion: spec.platformVersion ?? latestPlatformVersionFor(spec.version),
    status: spec.status,
    createdAt: now - 3 * 24 * 3600_000,
    roleArn: `arn:aws:iam::${accountId}:role/${spec.name}-cluster-role`,
    vpcId,
    subnetIds: subnets.map((s) => s.id),
    securityGroupIds: [`sg-0${hexOf(`${spec.name}/sg`, 16)}`],
    clusterSecurityGroupId: `sg-0${hexOf(`${spec.name}/cluster-sg`, 16)}`,
    serviceIpv4Cidr: '172.20.0.0/16',
    tags: spec.tags,
    supportType: spec.supportType,
    healthIssues: spec.health.map((h) => ({ ...h })),
    oidcId,
    certificateData: fakeCertificate(spec.name),
    unreachable: spec.unreachable,
    updates: [],
    nodegroups: new Map(),
    addons: new Map(),
    fargateProfiles: new Map(),
    deprecatedApis: spec.deprecatedApis,
    store,
    insightTransitions: new Map(),
    insightsRefreshedAt: now - spec.insightsAgeHours * 3600_000,
    insightOverrides: new Map(),
  };
  if (spec.upgradedFrom) {
    if (nextMinor(spec.upgradedFrom.version) !== spec.version) {
      throw new Error(`scenario cluster ${spec.name}: upgradedFrom.version ${spec.upgradedFrom.version} must be the minor just below ${spec.version}`);
    }
    recordInPlaceUpgrade(world, cluster, spec.upgradedFrom.version, now - spec.upgradedFrom.hoursAgo * 3600_000);
  }
  if (spec.computeConfig) {
    cluster.computeConfig = { enabled: true, nodePools: spec.computeConfig.nodePools, nodeRoleArn: `arn:aws:iam::${accountId}:role/${spec.name}-auto-node-role` };
    for (const pool of spec.computeConfig.nodePools) store.create('nodepools', autoModeNodePool(pool));
    for (const node of spec.computeConfig.nodes) {
      launchAutoModeNode(world, cluster, { nodePool: node.nodePool, instanceType: node.instanceType, zone: node.zone, minor: spec.computeConfig.nodeVersion ?? spec.version });
    }
  }

  for (const addon of spec.addons) {
    cluster.addons.set(addon.name, {
      name: addon.name,
      version: addon.version,
      status: 'ACTIVE',
      createdAt: cluster.createdAt,
      modifiedAt: cluster.createdAt,
      healthIssues: [],
      ...(addon.name.endsWith('csi-driver') ? { serviceAccountRoleArn: `arn:aws:iam::${accountId}:role/${spec.name}-${addon.name.replace('aws-', '')}` } : {}),
    });
  }
  for (const profile of spec.fargateProfiles) {
    cluster.fargateProfiles.set(profile.name, {
      name: profile.name,
      arn: `arn:aws:eks:${region}:${accountId}:fargateprofile/${spec.name}/${profile.name}/${hexOf(profile.name, 8)}-${hexOf(profile.name + '/2', 4)}`,
      selectors: profile.selectors,
      subnets: cluster.subnetIds,
      podExecutionRoleArn: `arn:aws:iam::${accountId}:role/${spec.name}-fargate-pod-execution`,
      createdAt: cluster.createdAt,
      status: 'ACTIVE',
    });
  }
  for (const ngSpec of spec.nodegroups) {
    const ng = createNodegroupRecord(world, cluster, ngSpec, subnets);
    cluster.nodegroups.set(ng.name, ng);
    const image = nodegroupImage(world, ng);
    for (let i = 0; i < ng.scaling.desiredSize; i++) launchNodegroupNode(world, cluster, ng, image);
  }
  for (const group of spec.selfManaged) buildSelfManagedGroup(world, cluster, group, subnets);
  if (spec.karpenter) seedKarpenter(world, cluster, spec.karpenter);
  seedManifests(store, spec.name, spec.kubernetes);
  return cluster;
}

function createSubnets(world: SimWorld, spec: ScenarioCluster, vpcId: string): SimSubnet[] {
  const declared = spec.vpc?.subnets ?? ['a', 'b', 'c'].map((az, i) => ({ zone: `${spec.region}${az}`, cidr: `192.168.${i * 32}.0/19` }));
  return declared.map((s) => {
    const size = 2 ** (32 - Number(s.cidr.split('/')[1]));
    const subnet: SimSubnet = {
      id: ('id' in s && typeof s.id === 'string' ? s.id : undefined) ?? `subnet-0${hexOf(`${spec.name}/${s.zone}/${s.cidr}`, 16)}`,
      vpcId,
      zone: s.zone,
      cidr: s.cidr,
      region: spec.region,
      baseAvailable: 'availableIps' in s && typeof s.availableIps === 'number' ? s.availableIps : size - 5,
      used: new Set(),
    };
    world.subnets.set(subnet.id, subnet);
    return subnet;
  });
}

function createNodegroupRecord(world: SimWorld, cluster: SimCluster, spec: ScenarioNodegroup, subnets: SimSubnet[]): SimNodegroup {
  const { accountId } = world;
  const zones = spec.zones ?? subnets.map((s) => s.zone);
  const uuid = `${hexOf(spec.name, 8)}-${hexOf(spec.name + 1, 4)}-${hexOf(spec.name + 2, 4)}-${hexOf(spec.name + 3, 4)}-${hexOf(spec.name + 4, 12)}`;
  let launchTemplate: SimNodegroup['launchTemplate'];
  let version = spec.version ?? cluster.version;
  let releaseVersion: string;
  if (spec.launchTemplate) {
    const id = `lt-0${hexOf(`${cluster.name}/${spec.launchTemplate.name}`, 16)}`;
    const versions = new Map<number, { imageId: string; createdAt: number }>();
    const last = Math.max(spec.launchTemplate.version, spec.launchTemplate.latestVersion ?? 0);
    for (let v = 1; v <= last; v++) versions.set(v, { imageId: spec.launchTemplate.imageId, createdAt: cluster.createdAt });
    world.launchTemplates.set(id, { id, name: spec.launchTemplate.name, versions, defaultVersion: 1 });
    launchTemplate = { id, name: spec.launchTemplate.name, version: String(spec.launchTemplate.version) };
    if (spec.amiType === 'CUSTOM') version = minorOfAmi(spec.launchTemplate.imageId) ?? version;
  }
  // Node groups on a custom AMI report the AMI id as their release version, as EKS does.
  releaseVersion = spec.amiType === 'CUSTOM' && spec.launchTemplate ? spec.launchTemplate.imageId : releaseVersionFor(version, spec.amiType.startsWith('BOTTLEROCKET') ? 'Bottlerocket' : 'AL2');
  return {
    name: spec.name,
    arn: `arn:aws:eks:${cluster.region}:${accountId}:nodegroup/${cluster.name}/${spec.name}/${uuid}`,
    clusterName: cluster.name,
    version,
    releaseVersion,
    amiType: spec.amiType,
    capacityType: spec.capacityType,
    instanceTypes: spec.instanceTypes,
    scaling: { minSize: spec.scaling.min, maxSize: spec.scaling.max, desiredSize: spec.scaling.desired },
    updateConfig: { ...spec.updateConfig },
    labels: spec.labels,
    taints: spec.taints,
    subnets: subnets.filter((s) => zones.includes(s.zone)).map((s) => s.id),
    launchTemplate,
    status: 'ACTIVE',
    healthIssues: [],
    createdAt: cluster.createdAt,
    modifiedAt: cluster.createdAt,
    nodeRole: `arn:aws:iam::${accountId}:role/${spec.name.split('-')[0]}-eks-node-group`,
    diskSize: 20,
    asgName: `eks-${spec.name}-${uuid}`,
    tags: spec.tags ?? {},
  };
}

/** Any PEM works: the simulator serves plain http and clients skip TLS verification for it. */
function fakeCertificate(name: string): string {
  const body = Buffer.from(hexOf(`${name}/ca`, 64).repeat(12), 'hex').toString('base64');
  const lines = body.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}
