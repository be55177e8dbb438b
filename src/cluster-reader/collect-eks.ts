import type { Addon, AddonInfo as SdkAddonInfo, ClusterVersionInformation, Insight, InsightSummary, Nodegroup } from '@aws-sdk/client-eks';
import { readUpdatesByTime } from './read-updates-by-time.js';
import type { EksPort } from '../ports/aws/eks-port.js';
import type {
  AddonInfo,
  FargateProfileInfo,
  HealthIssue,
  InsightInfo,
  NodegroupInfo,
  OfferedVersion,
  UpdateInfo,
} from '../planning/cluster-snapshot.js';
import type { Limiter } from './bounded.js';

/**
 * The EKS reads of a snapshot, each turning the SDK's shapes into the snapshot's plain data (dates to epoch ms,
 * optional fields defaulted). Failures propagate; collect-snapshot.ts records them per area.
 */
export function healthIssues(issues: Array<{ code?: string; message?: string; resourceIds?: string[] }> | undefined): HealthIssue[] {
  return (issues ?? []).map((issue) => ({ code: String(issue.code ?? 'Unknown'), message: issue.message ?? '', resourceIds: issue.resourceIds ?? [] }));
}

export function toOfferedVersion(info: ClusterVersionInformation): OfferedVersion {
  const status = String(info.versionStatus ?? info.status ?? '').toUpperCase().replace('-', '_');
  const support: OfferedVersion['support'] =
    status === 'STANDARD_SUPPORT' ? 'standard' : status === 'EXTENDED_SUPPORT' ? 'extended' : status === 'UNSUPPORTED' ? 'unsupported' : 'unknown';
  return {
    version: info.clusterVersion ?? '',
    support,
    releaseDate: info.releaseDate?.getTime(),
    endOfStandardSupport: info.endOfStandardSupportDate?.getTime(),
    endOfExtendedSupport: info.endOfExtendedSupportDate?.getTime(),
    isDefault: info.defaultVersion,
  };
}

export async function readVersions(eks: EksPort): Promise<OfferedVersion[]> {
  const versions = (await eks.describeClusterVersions()).map(toOfferedVersion).filter((v) => v.version);
  return versions.sort((a, b) => Number(a.version.split('.')[1]) - Number(b.version.split('.')[1]));
}

/** The latest updates by `createdAt`; only worth reading when the cluster is not ACTIVE (ListUpdates keeps no order). */
export async function readUpdates(eks: EksPort, cluster: string, run: Limiter): Promise<UpdateInfo[]> {
  const updates = (await readUpdatesByTime(eks, cluster, { run })).slice(-5);
  return updates.map((update) => ({
    id: update.id ?? '',
    type: String(update.type ?? 'Unknown'),
    status: String(update.status ?? 'Unknown'),
    version: update.params?.find((p) => p.type === 'Version')?.value,
  }));
}

function toNodegroup(ng: Nodegroup): NodegroupInfo {
  return {
    name: ng.nodegroupName ?? '',
    status: String(ng.status ?? 'UNKNOWN'),
    version: ng.version,
    releaseVersion: ng.releaseVersion,
    amiType: ng.amiType,
    capacityType: ng.capacityType,
    instanceTypes: ng.instanceTypes ?? [],
    scaling: { min: ng.scalingConfig?.minSize ?? 0, max: ng.scalingConfig?.maxSize ?? 0, desired: ng.scalingConfig?.desiredSize ?? 0 },
    maxUnavailable: ng.updateConfig?.maxUnavailable,
    maxUnavailablePercentage: ng.updateConfig?.maxUnavailablePercentage,
    subnets: ng.subnets ?? [],
    labels: ng.labels ?? {},
    taints: (ng.taints ?? []).map((t) => ({ key: t.key ?? '', value: t.value, effect: String(t.effect ?? '') })),
    launchTemplate: ng.launchTemplate ? { id: ng.launchTemplate.id, name: ng.launchTemplate.name, version: ng.launchTemplate.version } : undefined,
    healthIssues: healthIssues(ng.health?.issues),
    tags: ng.tags ?? {},
  };
}

/**
 * The node groups by name alone (ListNodegroups, no DescribeNodegroup each): all the status card shows of a node group
 * with no nodes yet. Every other field is left at its empty value ('UNKNOWN' status), for a snapshot of scope 'status'.
 */
export async function readNodegroupNames(eks: EksPort, cluster: string): Promise<NodegroupInfo[]> {
  return (await eks.listNodegroups(cluster)).map((name) => toNodegroup({ nodegroupName: name })).sort((a, b) => a.name.localeCompare(b.name));
}

export async function readNodegroups(eks: EksPort, cluster: string, run: Limiter): Promise<NodegroupInfo[]> {
  const names = await eks.listNodegroups(cluster);
  const described = await Promise.all(names.map((name) => run(() => eks.describeNodegroup(cluster, name))));
  return described.map(toNodegroup).sort((a, b) => a.name.localeCompare(b.name));
}

function versionsFor(infos: SdkAddonInfo[], addon: string, minor: string): { versions: string[]; defaultVersion?: string } {
  const info = infos.find((candidate) => candidate.addonName === addon) ?? infos[0];
  const versions: string[] = [];
  let defaultVersion: string | undefined;
  for (const entry of info?.addonVersions ?? []) {
    if (!entry.addonVersion) continue;
    const compatible = (entry.compatibilities ?? []).filter((c) => c.clusterVersion === minor);
    // EKS filters by kubernetesVersion already; an entry without compatibilities is taken as compatible.
    if ((entry.compatibilities ?? []).length > 0 && compatible.length === 0) continue;
    versions.push(entry.addonVersion);
    if (compatible.some((c) => c.defaultVersion)) defaultVersion = entry.addonVersion;
  }
  return { versions, defaultVersion };
}

export async function readAddons(eks: EksPort, cluster: string, minors: string[], run: Limiter, describe: (op: string, e: unknown) => string): Promise<AddonInfo[]> {
  const names = await eks.listAddons(cluster);
  const addons = await Promise.all(
    names.map(async (name): Promise<AddonInfo> => {
      // The catalogue needs only the add-on's name: read it alongside DescribeAddon, not after it.
      const catalog: AddonInfo['catalog'] = {};
      const catalogErrors: string[] = [];
      const [addon]: [Addon, ...unknown[]] = await Promise.all([
        run(() => eks.describeAddon(cluster, name)),
        ...minors.map(async (minor) => {
          try {
            catalog[minor] = versionsFor(await run(() => eks.describeAddonVersions(name, minor)), name, minor);
          } catch (error) {
            catalogErrors.push(describe(`DescribeAddonVersions for ${name} on ${minor}`, error));
          }
        }),
      ]);
      return {
        name,
        version: addon.addonVersion ?? 'unknown',
        status: addon.status,
        healthIssues: healthIssues(addon.health?.issues),
        tags: addon.tags ?? {},
        catalog: Object.fromEntries(minors.filter((minor) => minor in catalog).map((minor) => [minor, catalog[minor]])),
        catalogErrors,
      };
    }),
  );
  return addons.sort((a, b) => a.name.localeCompare(b.name));
}

function toInsight(summary: InsightSummary, detail: Insight | undefined, detailError?: string): InsightInfo {
  const source = detail ?? summary;
  return {
    id: summary.id ?? '',
    name: summary.name ?? summary.id ?? 'insight',
    category: String(summary.category ?? ''),
    kubernetesVersion: summary.kubernetesVersion,
    lastRefreshTime: summary.lastRefreshTime?.getTime(),
    status: (source.insightStatus?.status ?? 'UNKNOWN') as InsightInfo['status'],
    reason: source.insightStatus?.reason,
    recommendation: detail?.recommendation,
    resources: (detail?.resources ?? []).map((r) => ({ uri: r.kubernetesResourceUri, arn: r.arn, status: r.insightStatus?.status, reason: r.insightStatus?.reason })),
    deprecations: (detail?.categorySpecificSummary?.deprecationDetails ?? []).map((d) => ({
      usage: d.usage ?? '',
      replacedWith: d.replacedWith,
      stopServingVersion: d.stopServingVersion,
      startServingReplacementVersion: d.startServingReplacementVersion,
      clients: (d.clientStats ?? []).map((c) => ({ userAgent: c.userAgent ?? 'unknown client', requestsLast30Days: c.numberOfRequestsLast30Days ?? 0 })),
    })),
    ...(detailError ? { detailError } : {}),
  };
}

/** The insights as ListInsights gives them, status and reason, without details (a fleet row counts them). */
export function listedInsights(summaries: InsightSummary[]): InsightInfo[] {
  return summaries.map((summary) => toInsight(summary, undefined));
}

/** Every insight; DescribeInsight only for the non-passing ones (the details are what a finding needs). */
export async function readInsights(
  eks: EksPort,
  cluster: string,
  run: Limiter,
  describe: (op: string, e: unknown) => string,
  summaries?: InsightSummary[],
): Promise<InsightInfo[]> {
  summaries ??= await eks.listInsights(cluster);
  return Promise.all(
    summaries.map(async (summary) => {
      if (summary.insightStatus?.status === 'PASSING' || !summary.id) return toInsight(summary, undefined);
      try {
        return toInsight(summary, await run(() => eks.describeInsight(cluster, summary.id!)));
      } catch (error) {
        return toInsight(summary, undefined, describe(`DescribeInsight ${summary.id}`, error));
      }
    }),
  );
}

export async function readFargateProfiles(eks: EksPort, cluster: string, run: Limiter): Promise<FargateProfileInfo[]> {
  const names = await eks.listFargateProfiles(cluster);
  const profiles = await Promise.all(names.map((name) => run(() => eks.describeFargateProfile(cluster, name))));
  return profiles.map((p) => ({
    name: p.fargateProfileName ?? '',
    status: p.status,
    subnets: p.subnets ?? [],
    selectors: (p.selectors ?? []).map((s) => ({ namespace: s.namespace ?? '', ...(s.labels ? { labels: s.labels } : {}) })),
  }));
}
