/**
 * Reads one cluster into a ClusterSnapshot through the ports: DescribeCluster first (everything else needs its
 * version and subnets), then EKS, EC2, Kubernetes and SSM areas in parallel with at most `concurrency` AWS calls in
 * flight. Every area's failure is recorded in the snapshot, never thrown, so status shows what it could read.
 */

import type { AutoScalingPortFactory } from '../ports/aws/autoscaling-port.js';
import type { Clock } from '../ports/clock.js';
import type { Ec2PortFactory } from '../ports/aws/ec2-port.js';
import type { EksPort, EksPortFactory } from '../ports/aws/eks-port.js';
import type { KubePortFactory } from '../ports/kube-port.js';
import type { SsmPortFactory } from '../ports/aws/ssm-port.js';
import {
  readFailed,
  readOk,
  valueOr,
  type ClusterInfo,
  type ClusterSnapshot,
  type Read,
} from '../planning/cluster-snapshot.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { amiParameter } from '../planning/deciders/ami-parameters.js';
import { formatMinor, parseMinor } from '../domain/minor-version.js';
import { createLimiter } from './bounded.js';
import { collectKube, type KubeOptIn } from './collect-kube.js';
import { amisWanted, lookupAmis } from './collect-amis.js';
import { readAutoScalingGroups } from './collect-asgs.js';
import { healthIssues, listedInsights, readAddons, readFargateProfiles, readInsights, readNodegroupNames, readNodegroups, readUpdates, readVersions } from './collect-eks.js';
import { describeReadError } from './read-error.js';
import { listFreshInsights, type InsightsFreshness } from './refresh-insights.js';
import type { InsightsRefreshInfo } from '../planning/cluster-snapshot.js';

/** The ports a snapshot is read through; the bot's BotDeps is one (Slack commands read as the engine does). */
export interface SnapshotSources {
  eks: EksPortFactory;
  ec2: Ec2PortFactory;
  ssm: SsmPortFactory;
  kube: KubePortFactory;
  clock: Clock;
  /** Self-managed node groups' Auto Scaling groups; without it their checks do not run. */
  autoScaling?: AutoScalingPortFactory;
}

export interface SnapshotRequest {
  name: string;
  region: string;
  roleArn?: string;
  /** Minors to look add-on versions and AMIs up for, besides the current one (default: the next minor). */
  targetMinors?: string[];
  concurrency?: number;
  /** Refresh insights older than this first (plan and preflight; status reads them as they are). */
  insightsFreshness?: InsightsFreshness;
  /** Read what the opt-in checks need (Helm release secrets: `checks.helmReleases`). */
  optIn?: KubeOptIn;
  /** Ask the apiserver which of the job's permissions the bot has (plan and preflight; status does not need it). */
  askAccess?: boolean;
  /**
   * 'status': read only what the status card shows (cluster, versions, node group names, add-ons and their
   * catalogue, insights, nodes and NodePools) and connect to the Kubernetes API alongside DescribeCluster. Node
   * groups are not described (the card groups nodes by the node group's label and needs only the names); Fargate
   * profiles, subnets, launch templates, AMIs, Auto Scaling groups and the workload lists are left empty, not read.
   * 'fleet': only what one cluster's row of `status --all` shows (versions, kubelets and their skew, add-ons, insight
   * counts): as 'status', without the node group names and the NodePools (a row counts kubelets from the nodes alone)
   * and without DescribeInsight (a row counts insights by their listed status).
   */
  scope?: 'status' | 'fleet';
}

/**
 * A status card's calls after DescribeCluster in one round: the versions, then per add-on DescribeAddon and its
 * catalogue for the current and next minor (3 add-ons: 10 calls). With 8 the last add-on's catalogue waited for a
 * second round trip (bench P2: one cluster's status took three round trips instead of two).
 */
const STATUS_CALLS_AT_ONCE = 16;

async function area<T>(operation: string, read: () => Promise<T>): Promise<Read<T>> {
  try {
    return readOk(await read());
  } catch (error) {
    return readFailed(describeReadError(operation, error));
  }
}

export async function collectSnapshot(sources: SnapshotSources, request: SnapshotRequest): Promise<ClusterSnapshot> {
  const { name, region, roleArn } = request;
  const target = { region, roleArn };
  const readAt = sources.clock.now();
  const statusOnly = request.scope === 'status' || request.scope === 'fleet';
  const fleetRow = request.scope === 'fleet';
  const run = createLimiter(request.concurrency ?? (statusOnly ? STATUS_CALLS_AT_ONCE : 8));
  // Status connects to the Kubernetes API (its own DescribeCluster, cached per cluster) while DescribeCluster runs.
  const kubePort = statusOnly ? sources.kube({ name, region, roleArn }) : undefined;
  kubePort?.catch(() => {});
  // …and starts the lists that need only the cluster's name, so the chain is DescribeCluster ∥ lists → describes.
  const prefetched = statusOnly ? prefetchNameLists(sources.eks(target), name, !fleetRow) : undefined;

  const cluster = await area(`DescribeCluster for ${name}`, async (): Promise<ClusterInfo> => {
    const described = await sources.eks(target).describeCluster(name);
    return {
      name: described.name ?? name,
      version: described.version ?? 'unknown',
      platformVersion: described.platformVersion,
      status: String(described.status ?? 'UNKNOWN'),
      subnetIds: described.resourcesVpcConfig?.subnetIds ?? [],
      tags: described.tags ?? {},
      healthIssues: healthIssues(described.health?.issues),
      supportType: described.upgradePolicy?.supportType as ClusterInfo['supportType'],
    };
  });
  if (!cluster.ok) return unreadSnapshot(name, region, readAt, cluster.error);

  const eks = prefetched ?? sources.eks(target);
  const current = formatMinor(parseMinor(cluster.value.version) ?? { major: 0, minor: 0 });
  const targets = request.targetMinors ?? [nextMinorOf(current)].filter((m): m is string => !!m);
  const minors = [...new Set([current, ...targets])];

  let insightsRefresh: InsightsRefreshInfo | undefined;
  const [versions, updates, nodegroups, addons, insights, fargateProfiles, kube] = await Promise.all([
    area(`DescribeClusterVersions`, () => run(() => readVersions(eks))),
    cluster.value.status === 'ACTIVE' ? Promise.resolve(readOk([])) : area(`ListUpdates for ${name}`, () => readUpdates(eks, name, run)),
    fleetRow ? Promise.resolve(readOk([])) : area(`Reading the node groups of ${name}`, () => (statusOnly ? readNodegroupNames(eks, name) : readNodegroups(eks, name, run))),
    area(`Reading the add-ons of ${name}`, () => readAddons(eks, name, minors, run, describeReadError)),
    area(`Reading the upgrade insights of ${name}`, async () => {
      const { summaries, refresh } = await listFreshInsights(eks, name, sources.clock, request.insightsFreshness);
      insightsRefresh = refresh;
      return fleetRow ? listedInsights(summaries) : readInsights(eks, name, run, describeReadError, summaries);
    }),
    statusOnly ? Promise.resolve(readOk([])) : area(`Reading the Fargate profiles of ${name}`, () => readFargateProfiles(eks, name, run)),
    collectKube(() => kubePort ?? sources.kube({ name, region, roleArn }), name, { ...request.optIn, askAccess: request.askAccess, ...(statusOnly ? { scope: fleetRow ? ('fleet' as const) : ('status' as const) } : {}) }),
  ]);
  if (statusOnly) {
    return { name, region, readAt, cluster, versions, updates, nodegroups, addons, insights, ...(insightsRefresh ? { insightsRefresh } : {}), fargateProfiles, subnets: readOk([]), kube, amis: [] };
  }

  const subnetIds = [
    ...new Set([
      ...cluster.value.subnetIds,
      ...valueOr(nodegroups, []).flatMap((ng) => ng.subnets),
      ...valueOr(fargateProfiles, []).flatMap((p) => p.subnets),
      // VPC CNI custom networking: pods take their IPs from the ENIConfigs' subnets, not the nodes'.
      ...valueOr(kube.eniConfigs ?? readOk([]), []).map((eni) => String(eni.spec?.subnet ?? '')).filter((id) => id.startsWith('subnet-')),
    ]),
  ];
  const templates = valueOr(nodegroups, []).flatMap((ng) => (ng.launchTemplate?.id || ng.launchTemplate?.name ? [ng.launchTemplate] : []));
  const wanted = amisWanted(valueOr(nodegroups, []), kube, current, targets);
  const autoScaling = sources.autoScaling;
  const [subnets, launchTemplates, amis, autoScalingGroups] = await Promise.all([
    area(`DescribeSubnets for ${name}`, () => run(() => sources.ec2(target).describeSubnets(subnetIds))),
    templates.length === 0
      ? Promise.resolve(undefined)
      : area(`DescribeLaunchTemplateVersions for ${name}`, async () => {
          const ec2 = sources.ec2(target);
          // A port without the call (the engine's fallback, test doubles) reads nothing: NG005 stays silent.
          if (!ec2.latestLaunchTemplateVersion) return [];
          return Promise.all(templates.map((lt) => run(() => ec2.latestLaunchTemplateVersion!(lt))));
        }),
    (async () => lookupAmis(sources.ssm(target), wanted, run, describeReadError))().catch((error) =>
      // The SSM client itself could not be built: every lookup carries that reason.
      wanted.flatMap(({ family, arch, minors: amiMinors }) =>
        amiMinors.map((minor) => ({ minor, family, arch, parameter: amiParameter(minor, family, arch), error: describeReadError('GetParameter', error) })),
      ),
    ),
    autoScaling
      ? area(`Reading the Auto Scaling groups of ${name}`, () =>
          readAutoScalingGroups({ autoScaling: autoScaling(target), ec2: sources.ec2(target), ssm: sources.ssm(target) }, { cluster: name, kube, targets, run, describe: describeReadError }),
        )
      : Promise.resolve(undefined),
  ]);
  return { name, region, readAt, cluster, versions, updates, nodegroups, addons, insights, ...(insightsRefresh ? { insightsRefresh } : {}), fargateProfiles, subnets, ...(launchTemplates ? { launchTemplates } : {}), kube, amis, ...(autoScalingGroups ? { autoScalingGroups } : {}) };
}

/**
 * The cluster's port with ListAddons, ListNodegroups and ListInsights (unfiltered) already under way; every other
 * call, and these for other clusters, go to the port as usual. A failure is seen by whoever awaits it (or nobody,
 * when DescribeCluster failed first).
 */
function prefetchNameLists(eks: EksPort, cluster: string, withNodegroups: boolean): EksPort {
  const addons = eks.listAddons(cluster);
  const nodegroups = withNodegroups ? eks.listNodegroups(cluster) : undefined;
  const insights = eks.listInsights(cluster);
  for (const list of [addons, nodegroups, insights]) list?.catch(() => {});
  return Object.assign(Object.create(eks) as EksPort, {
    listAddons: (name: string) => (name === cluster ? addons : eks.listAddons(name)),
    listNodegroups: (name: string) => (name === cluster && nodegroups ? nodegroups : eks.listNodegroups(name)),
    listInsights: (name: string, filter?: Parameters<EksPort['listInsights']>[1]) => (name === cluster && !filter ? insights : eks.listInsights(name, filter)),
  });
}

/** A snapshot of a cluster DescribeCluster could not read: every area says so. */
export function unreadSnapshot(name: string, region: string, readAt: number, error: string): ClusterSnapshot {
  const failed = readFailed<never>(error);
  const notRead = readFailed<never>('not read (DescribeCluster failed)');
  return {
    name,
    region,
    readAt,
    cluster: failed,
    versions: notRead,
    updates: notRead,
    nodegroups: notRead,
    addons: notRead,
    insights: notRead,
    fargateProfiles: notRead,
    subnets: notRead,
    kube: { nodes: notRead, pods: notRead, deployments: notRead, statefulsets: notRead, pdbs: notRead, pvcs: notRead, hpas: notRead, karpenter: notRead },
    amis: [],
  };
}
