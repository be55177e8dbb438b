/**
 * The JSON EKS puts on the wire (restJson1): field names as in @aws-sdk/client-eks's shapes, timestamps as epoch
 * seconds with fractions (e.g. 1700000000.123).
 */

import type { SimInsight } from './insights.js';
import { latestPlatformVersionFor, patchVersionFor, supportCalendarFor } from './version-catalog.js';
import type { SimAddon, SimCluster, SimFargateProfile, SimNodegroup, SimUpdate, SimWorld } from '../world-types.js';

export const epochSeconds = (ms: number) => Math.round(ms) / 1000;

export function wireCluster(world: SimWorld, cluster: SimCluster): Record<string, unknown> {
  return {
    name: cluster.name,
    arn: cluster.arn,
    createdAt: epochSeconds(cluster.createdAt),
    version: cluster.version,
    endpoint: `${world.baseUrl}/k8s/${cluster.name}`,
    roleArn: cluster.roleArn,
    resourcesVpcConfig: {
      subnetIds: cluster.subnetIds,
      securityGroupIds: cluster.securityGroupIds,
      clusterSecurityGroupId: cluster.clusterSecurityGroupId,
      vpcId: cluster.vpcId,
      endpointPublicAccess: true,
      endpointPrivateAccess: true,
      publicAccessCidrs: ['0.0.0.0/0'],
    },
    kubernetesNetworkConfig: { serviceIpv4Cidr: cluster.serviceIpv4Cidr, ipFamily: 'ipv4', elasticLoadBalancing: { enabled: Boolean(cluster.computeConfig?.enabled) } },
    logging: { clusterLogging: [{ types: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'], enabled: false }] },
    identity: { oidc: { issuer: `https://oidc.eks.${cluster.region}.amazonaws.com/id/${cluster.oidcId}` } },
    status: cluster.status,
    certificateAuthority: { data: cluster.certificateData },
    platformVersion: cluster.platformVersion,
    tags: cluster.tags,
    health: { issues: cluster.healthIssues },
    accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
    ...(cluster.computeConfig
      ? {
          computeConfig: cluster.computeConfig,
          storageConfig: { blockStorage: { enabled: cluster.computeConfig.enabled } },
        }
      : {}),
    upgradePolicy: { supportType: cluster.supportType },
  };
}

export function wireUpdate(update: SimUpdate): Record<string, unknown> {
  return {
    id: update.id,
    status: update.status,
    type: update.type,
    params: update.params,
    createdAt: epochSeconds(update.createdAt),
    errors: update.errors,
    ...(update.cancellation ? { cancellation: update.cancellation } : {}),
  };
}

export function wireNodegroup(ng: SimNodegroup): Record<string, unknown> {
  return {
    nodegroupName: ng.name,
    nodegroupArn: ng.arn,
    clusterName: ng.clusterName,
    version: ng.version,
    releaseVersion: ng.releaseVersion,
    createdAt: epochSeconds(ng.createdAt),
    modifiedAt: epochSeconds(ng.modifiedAt),
    status: ng.status,
    capacityType: ng.capacityType,
    scalingConfig: ng.scaling,
    instanceTypes: ng.instanceTypes,
    subnets: ng.subnets,
    amiType: ng.amiType,
    nodeRole: ng.nodeRole,
    labels: ng.labels,
    ...(ng.taints.length ? { taints: ng.taints } : {}),
    resources: { autoScalingGroups: [{ name: ng.asgName }] },
    ...(ng.launchTemplate ? {} : { diskSize: ng.diskSize }),
    health: { issues: ng.healthIssues },
    updateConfig: ng.updateConfig,
    ...(ng.launchTemplate ? { launchTemplate: ng.launchTemplate } : {}),
    tags: ng.tags,
  };
}

export function wireAddon(world: SimWorld, cluster: SimCluster, addon: SimAddon): Record<string, unknown> {
  return {
    addonName: addon.name,
    clusterName: cluster.name,
    status: addon.status,
    addonVersion: addon.version,
    health: { issues: addon.healthIssues },
    addonArn: `arn:aws:eks:${cluster.region}:${world.accountId}:addon/${cluster.name}/${addon.name}/${addon.createdAt.toString(16).slice(-8)}`,
    createdAt: epochSeconds(addon.createdAt),
    modifiedAt: epochSeconds(addon.modifiedAt),
    ...(addon.serviceAccountRoleArn ? { serviceAccountRoleArn: addon.serviceAccountRoleArn } : {}),
    ...(addon.configurationValues ? { configurationValues: addon.configurationValues } : {}),
    tags: {},
  };
}

export function wireFargateProfile(cluster: SimCluster, profile: SimFargateProfile): Record<string, unknown> {
  return {
    fargateProfileName: profile.name,
    fargateProfileArn: profile.arn,
    clusterName: cluster.name,
    createdAt: epochSeconds(profile.createdAt),
    podExecutionRoleArn: profile.podExecutionRoleArn,
    subnets: profile.subnets,
    selectors: profile.selectors,
    status: profile.status,
    tags: {},
    health: { issues: [] },
  };
}

export function wireInsightSummary(insight: SimInsight): Record<string, unknown> {
  return {
    id: insight.id,
    name: insight.name,
    category: insight.category,
    kubernetesVersion: insight.kubernetesVersion,
    lastRefreshTime: epochSeconds(insight.lastRefreshTime),
    lastTransitionTime: epochSeconds(insight.lastTransitionTime),
    description: insight.description,
    insightStatus: insight.insightStatus,
  };
}

export function wireInsight(insight: SimInsight): Record<string, unknown> {
  const details = insight.categorySpecificSummary.deprecationDetails?.map((d) => ({
    ...d,
    clientStats: d.clientStats.map((c) => ({ ...c, lastRequestTime: epochSeconds(c.lastRequestTime) })),
  }));
  return {
    ...wireInsightSummary(insight),
    recommendation: insight.recommendation,
    additionalInfo: insight.additionalInfo,
    resources: insight.resources,
    categorySpecificSummary: { ...insight.categorySpecificSummary, ...(details ? { deprecationDetails: details } : {}) },
  };
}

/** One DescribeClusterVersions entry; `isDefault` marks the version new clusters get. */
export function wireClusterVersion(world: SimWorld, minor: string, isDefault: boolean): Record<string, unknown> {
  const cal = supportCalendarFor(minor, world.calendarShiftMs);
  const now = world.clock.now();
  const versionStatus = now < cal.endOfStandardSupport ? 'STANDARD_SUPPORT' : now < cal.endOfExtendedSupport ? 'EXTENDED_SUPPORT' : 'UNSUPPORTED';
  return {
    clusterVersion: minor,
    clusterType: 'eks',
    defaultPlatformVersion: latestPlatformVersionFor(minor),
    defaultVersion: isDefault,
    releaseDate: epochSeconds(cal.releaseDate),
    endOfStandardSupportDate: epochSeconds(cal.endOfStandardSupport),
    endOfExtendedSupportDate: epochSeconds(cal.endOfExtendedSupport),
    status: versionStatus.toLowerCase().replace('_', '-'),
    versionStatus,
    kubernetesPatchVersion: patchVersionFor(minor),
  };
}
