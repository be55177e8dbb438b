import { createHash } from 'node:crypto';
import { compatibleAddonVersions, addonVersionEntry, defaultAddonVersion, parseAddonVersion } from './addon-catalog.js';
import { DO_NOT_DISRUPT, autoModeNodes, isAutoModeNode, kubeletMinorOf, nodePoolBlocksDrift } from './auto-mode.js';
import { openRollbackWindow } from './rollback-window.js';
import { compareMinors, nextMinor } from './version-catalog.js';
import type { SimCluster, SimWorld } from '../world-types.js';

/**
 * EKS upgrade insights (UPGRADE_READINESS), computed from the cluster as it is now. Each is about the next minor
 * (kubernetesVersion); ERROR means it breaks that upgrade, WARNING a later one. For 7 days after an in-place upgrade
 * ROLLBACK_READINESS insights are about the previous minor (see rollbackReadiness).
 *
 * EKS computes insights in a scan about every 24 hours or after `StartInsightsRefresh` (IN_PROGRESS for
 * INSIGHTS_REFRESH_MS of simulated time, then COMPLETED); until the next scan they describe what they described at
 * `lastRefreshTime` (EKS user guide, cluster-insights; aws/containers-roadmap#2569). `scannedInsights` is what the
 * API answers: the verdicts of the last scan. `computeInsights` is what a scan finds now.
 */
export type InsightStatusValue = 'PASSING' | 'WARNING' | 'ERROR' | 'UNKNOWN';

export interface SimInsight {
  id: string;
  name: string;
  category: 'UPGRADE_READINESS' | 'ROLLBACK_READINESS';
  kubernetesVersion: string;
  lastRefreshTime: number;
  lastTransitionTime: number;
  description: string;
  insightStatus: { status: InsightStatusValue; reason: string };
  recommendation: string;
  additionalInfo: Record<string, string>;
  resources: Array<{ insightStatus: { status: InsightStatusValue; reason: string }; kubernetesResourceUri?: string; arn?: string }>;
  categorySpecificSummary: {
    deprecationDetails?: Array<{
      usage: string;
      replacedWith: string;
      stopServingVersion: string;
      startServingReplacementVersion: string;
      clientStats: Array<{ userAgent: string; numberOfRequestsLast30Days: number; lastRequestTime: number }>;
    }>;
    addonCompatibilityDetails?: Array<{ name: string; compatibleVersions: string[] }>;
  };
}

type Draft = Omit<SimInsight, 'id' | 'lastRefreshTime' | 'lastTransitionTime' | 'category'> & { category?: SimInsight['category'] };

const DAY_MS = 24 * 3600_000;
/** How long an on-demand refresh takes (simulated time). */
export const INSIGHTS_REFRESH_MS = 60_000;

/** Brings the scan time forward: a finished on-demand refresh, or the daily rescan. */
export function insightsRefreshedAt(cluster: SimCluster, now: number): number {
  if (cluster.insightsRefresh && now >= cluster.insightsRefresh.endsAt && cluster.insightsRefreshedAt < cluster.insightsRefresh.endsAt) {
    cluster.insightsRefreshedAt = cluster.insightsRefresh.endsAt;
  }
  while (now - cluster.insightsRefreshedAt >= DAY_MS) cluster.insightsRefreshedAt += DAY_MS;
  return cluster.insightsRefreshedAt;
}

/** StartInsightsRefresh: starts a scan unless one is running; answers as EKS does ({message, status}). */
export function startInsightsRefresh(world: SimWorld, cluster: SimCluster, now: number): { message: string; status: 'IN_PROGRESS' | 'COMPLETED' } {
  scannedInsights(world, cluster);
  if (!cluster.insightsRefresh || now >= cluster.insightsRefresh.endsAt) {
    cluster.insightsRefresh = { startedAt: now, endsAt: now + INSIGHTS_REFRESH_MS };
    // The scan reads the cluster as it is when the refresh ends, not when it is next listed.
    world.after(INSIGHTS_REFRESH_MS, () => scannedInsights(world, cluster));
  }
  return { message: 'Insights refresh is in progress.', status: 'IN_PROGRESS' };
}

/**
 * The insights as of the last scan. A scan due since the last answer (the refresh ended, a day passed) runs now;
 * otherwise the verdicts stay what they were, even if the cluster has changed since — as EKS's do.
 */
export function scannedInsights(world: SimWorld, cluster: SimCluster): SimInsight[] {
  const scannedAt = insightsRefreshedAt(cluster, world.clock.now());
  if (!world.strictness.scheduledInsights) return computeInsights(world, cluster);
  if (!cluster.insightsScan || cluster.insightsScan.at !== scannedAt) cluster.insightsScan = { at: scannedAt, insights: computeInsights(world, cluster) };
  return cluster.insightsScan.insights;
}

/** DescribeInsightsRefresh: the last on-demand refresh, or the last daily scan when none was asked for. */
export function describeInsightsRefresh(cluster: SimCluster, now: number): { message: string; status: 'IN_PROGRESS' | 'COMPLETED'; startedAt: number; endedAt?: number } {
  const refreshedAt = insightsRefreshedAt(cluster, now);
  const refresh = cluster.insightsRefresh;
  if (refresh && now < refresh.endsAt) return { message: 'Insights refresh is in progress.', status: 'IN_PROGRESS', startedAt: refresh.startedAt };
  if (refresh && refresh.endsAt >= refreshedAt) return { message: 'Insights refresh completed.', status: 'COMPLETED', startedAt: refresh.startedAt, endedAt: refresh.endsAt };
  return { message: 'Insights refresh completed.', status: 'COMPLETED', startedAt: refreshedAt, endedAt: refreshedAt };
}

/**
 * ROLLBACK_READINESS insights, about N-1, while the 7-day rollback window of an in-place upgrade is open (the checks
 * rollback-cluster lists: kubelet version skew, kube-proxy version skew, add-on version compatibility, cluster health,
 * and on Auto Mode clusters the disruption controls that would hold the node rollback up). ERROR (and UNKNOWN) blocks
 * a rollback unless `force`. Auto Mode nodes are EKS's to roll back, so they are no kubelet finding.
 */
function rollbackReadiness(world: SimWorld, cluster: SimCluster, now: number): Draft[] {
  const window = openRollbackWindow(cluster, now);
  if (!window) return [];
  const target = window.version;
  const category = 'ROLLBACK_READINESS' as const;
  const newer = (minor: string | undefined) => (minor ? compareMinors(minor, target) > 0 : false);
  const drafts: Draft[] = [];

  const ahead = cluster.store.list('nodes').filter((node) => !isAutoModeNode(node) && newer(kubeletMinorOf(node)));
  drafts.push({
    category,
    name: 'Kubelet version skew',
    kubernetesVersion: target,
    description: `Checks for worker nodes whose kubelet is newer than Kubernetes ${target}, the version a rollback would return the control plane to. A kubelet must never be newer than the API server.`,
    insightStatus: {
      status: ahead.length ? 'ERROR' : 'PASSING',
      reason: ahead.length ? `${ahead.length} node(s) run a kubelet newer than ${target}.` : `No node runs a kubelet newer than ${target}.`,
    },
    recommendation: `Roll back managed node groups (UpdateNodegroupVersion to ${target}), self-managed nodes and Karpenter nodes to ${target} before rolling back the control plane. Fargate pods cannot be rolled back: delete those that run ${cluster.version} before the rollback and redeploy them after it, or use force.`,
    additionalInfo: { 'EKS cluster version rollback': 'https://docs.aws.amazon.com/eks/latest/userguide/rollback-cluster.html' },
    resources: ahead.map((node) => ({
      insightStatus: { status: 'ERROR' as const, reason: `Node kubelet ${kubeletMinorOf(node)} is newer than Kubernetes ${target}.` },
      kubernetesResourceUri: `/api/v1/nodes/${node.metadata.name}`,
    })),
    categorySpecificSummary: {},
  });

  const proxy = cluster.addons.get('kube-proxy');
  const parsed = proxy ? parseAddonVersion(proxy.version) : undefined;
  const proxyMinor = parsed ? `${parsed.major}.${parsed.minor}` : undefined;
  const proxyAhead = Boolean(proxy && newer(proxyMinor));
  drafts.push({
    category,
    name: 'kube-proxy version skew',
    kubernetesVersion: target,
    description: `Checks that kube-proxy is not newer than Kubernetes ${target}, the version a rollback would return the control plane to.`,
    insightStatus: {
      status: proxyAhead ? 'ERROR' : 'PASSING',
      reason: proxyAhead ? `kube-proxy ${proxy!.version} is newer than Kubernetes ${target}.` : `kube-proxy is not newer than Kubernetes ${target}.`,
    },
    recommendation: `Update the kube-proxy add-on to a version for Kubernetes ${target} (${defaultAddonVersion('kube-proxy', target) ?? 'see DescribeAddonVersions'}).`,
    additionalInfo: { 'Updating kube-proxy': 'https://docs.aws.amazon.com/eks/latest/userguide/managing-kube-proxy.html' },
    resources: proxyAhead
      ? [{ insightStatus: { status: 'ERROR' as const, reason: `kube-proxy ${proxy!.version} is newer than Kubernetes ${target}.` }, arn: addonArn(cluster, 'kube-proxy') }]
      : [],
    categorySpecificSummary: {},
  });

  const details: Array<{ name: string; compatibleVersions: string[] }> = [];
  const resources: Draft['resources'] = [];
  for (const addon of cluster.addons.values()) {
    if (addon.name === 'kube-proxy') continue;
    const entry = addonVersionEntry(addon.name, addon.version);
    if (!entry || entry.minors.includes(target)) continue;
    details.push({ name: addon.name, compatibleVersions: compatibleAddonVersions(addon.name, target).map((v) => v.addonVersion) });
    resources.push({ insightStatus: { status: 'ERROR', reason: `Add-on ${addon.name} ${addon.version} is not compatible with Kubernetes ${target}.` }, arn: addonArn(cluster, addon.name) });
  }
  drafts.push({
    category,
    name: 'EKS add-on version compatibility',
    kubernetesVersion: target,
    description: `Checks that installed EKS add-on versions are compatible with Kubernetes ${target}, the version a rollback would return the control plane to.`,
    insightStatus: {
      status: details.length ? 'ERROR' : 'PASSING',
      reason: details.length ? `Installed EKS add-on versions are not compatible with Kubernetes ${target}.` : `All installed EKS add-on versions are compatible with Kubernetes ${target}.`,
    },
    recommendation: `Update each listed add-on to a version compatible with Kubernetes ${target} before rolling back.`,
    additionalInfo: { 'Managing EKS add-ons': 'https://docs.aws.amazon.com/eks/latest/userguide/managing-add-ons.html' },
    resources,
    categorySpecificSummary: { addonCompatibilityDetails: details },
  });

  drafts.push({ ...clusterHealth(cluster, target), category, description: `Checks for cluster health issues that prevent a rollback to Kubernetes ${target}.` });

  if (cluster.computeConfig?.enabled) {
    const pinned = autoModeNodes(cluster).filter((node) => node.metadata.annotations?.[DO_NOT_DISRUPT] === 'true');
    const frozenPools = cluster.computeConfig.nodePools.filter((pool) => nodePoolBlocksDrift(cluster, pool));
    const pdbs = cluster.store.list('poddisruptionbudgets').filter((pdb) => pdb.spec?.maxUnavailable === 0 || pdb.spec?.maxUnavailable === '0%');
    const status: InsightStatusValue = pinned.length || frozenPools.length ? 'ERROR' : pdbs.length ? 'WARNING' : 'PASSING';
    drafts.push({
      category,
      name: 'Auto Mode node disruption controls',
      kubernetesVersion: target,
      description: 'Checks for disruption controls that would block or slow down the rollback of EKS Auto Mode nodes: do-not-disrupt annotations on nodes and PodDisruptionBudgets that allow no disruption.',
      insightStatus: {
        status,
        reason: pinned.length || frozenPools.length
          ? [
              pinned.length ? `${pinned.length} Auto Mode node(s) are annotated ${DO_NOT_DISRUPT}=true` : '',
              frozenPools.length ? `NodePool(s) ${frozenPools.join(', ')} allow no drift disruption (budget nodes: 0)` : '',
            ].filter(Boolean).join('; ') + '; the node rollback would be blocked.'
          : pdbs.length
            ? `${pdbs.length} PodDisruptionBudget(s) with maxUnavailable 0 would slow down the node rollback.`
            : 'No disruption control blocks the Auto Mode node rollback.',
      },
      recommendation: `Remove the ${DO_NOT_DISRUPT} annotation from the nodes, raise NodePool disruption budgets of 0, and relax PodDisruptionBudgets that allow no disruption.`,
      additionalInfo: { 'Rollback EKS Auto Mode clusters': 'https://docs.aws.amazon.com/eks/latest/userguide/rollback-automode.html' },
      resources: [
        ...pinned.map((node) => ({ insightStatus: { status: 'ERROR' as const, reason: `Node is annotated ${DO_NOT_DISRUPT}=true.` }, kubernetesResourceUri: `/api/v1/nodes/${node.metadata.name}` })),
        ...frozenPools.map((pool) => ({ insightStatus: { status: 'ERROR' as const, reason: 'NodePool disruption budget allows no drift (nodes: 0).' }, kubernetesResourceUri: `/apis/karpenter.sh/v1/nodepools/${pool}` })),
        ...pdbs.map((pdb) => ({
          insightStatus: { status: 'WARNING' as const, reason: 'PodDisruptionBudget allows no disruption (maxUnavailable 0).' },
          kubernetesResourceUri: `/apis/policy/v1/namespaces/${pdb.metadata.namespace ?? 'default'}/poddisruptionbudgets/${pdb.metadata.name}`,
        })),
      ],
      categorySpecificSummary: {},
    });
  }
  return drafts;
}

function addonArn(cluster: SimCluster, name: string): string {
  return `arn:aws:eks:${cluster.region}:${cluster.arn.split(':')[4]}:addon/${cluster.name}/${name}`;
}

/**
 * Insight states a test forced (POST /_sim/clusters/<name>/insights): the named insight of that category takes the
 * forced status, reason and resources; an override naming no computed insight adds one (e.g. "API usage
 * compatibility"), as long as its category has insights at all (ROLLBACK_READINESS: while the window is open).
 */
function applyOverrides(cluster: SimCluster, drafts: Draft[], targets: { UPGRADE_READINESS: string; ROLLBACK_READINESS?: string }): Draft[] {
  const out = [...drafts];
  for (const override of cluster.insightOverrides.values()) {
    const version = targets[override.category];
    if (!version) continue;
    const resources = override.resources.map((r) => ({
      insightStatus: { status: override.status, reason: r.reason ?? override.reason ?? `Forced to ${override.status}.` },
      ...(r.kubernetesResourceUri ? { kubernetesResourceUri: r.kubernetesResourceUri } : {}),
      ...(r.arn ? { arn: r.arn } : {}),
    }));
    const insightStatus = { status: override.status, reason: override.reason ?? `${override.name}: ${override.status}.` };
    const index = out.findIndex((d) => (d.category ?? 'UPGRADE_READINESS') === override.category && d.name === override.name);
    if (index >= 0) {
      out[index] = { ...out[index], insightStatus, resources };
      continue;
    }
    out.push({
      category: override.category,
      name: override.name,
      kubernetesVersion: version,
      description: `${override.name} (Kubernetes ${version}).`,
      insightStatus,
      recommendation: 'Resolve the listed resources.',
      additionalInfo: {},
      resources,
      categorySpecificSummary: {},
    });
  }
  return out;
}

function insightId(cluster: string, name: string, version: string, category: SimInsight['category']): string {
  const key = category === 'UPGRADE_READINESS' ? `${cluster}/${name}/${version}` : `${cluster}/${category}/${name}/${version}`;
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const worst = (statuses: InsightStatusValue[]): InsightStatusValue =>
  statuses.includes('ERROR') ? 'ERROR' : statuses.includes('WARNING') ? 'WARNING' : statuses.includes('UNKNOWN') ? 'UNKNOWN' : 'PASSING';

/** Kubelets may lag the apiserver by 3 minors from 1.28 on, 2 before (upstream version-skew policy). */
export function allowedKubeletSkew(apiserverMinor: string): number {
  return compareMinors(apiserverMinor, '1.28') >= 0 ? 3 : 2;
}

function minorDistance(from: string, to: string): number {
  return Number(to.split('.')[1]) - Number(from.split('.')[1]);
}

function kubeletSkew(cluster: SimCluster, target: string): Draft {
  const allowed = allowedKubeletSkew(target);
  const resources = cluster.store.list('nodes').map((node) => {
    const match = /^v(\d+)\.(\d+)/.exec(node.status?.nodeInfo?.kubeletVersion ?? '');
    const minor = match ? `${match[1]}.${match[2]}` : target;
    const lag = minorDistance(minor, target);
    const status: InsightStatusValue = lag > allowed ? 'ERROR' : lag === allowed ? 'WARNING' : 'PASSING';
    const reason =
      status === 'PASSING'
        ? 'Node kubelet version is within the supported skew.'
        : `Node kubelet ${minor} would be ${lag} minor versions behind Kubernetes ${target} (at most ${allowed} are supported).`;
    return { insightStatus: { status, reason }, kubernetesResourceUri: `/api/v1/nodes/${node.metadata.name}` };
  });
  const status = worst(resources.map((r) => r.insightStatus.status));
  return {
    name: 'Kubelet version skew',
    kubernetesVersion: target,
    description: 'Checks for kubelet versions of worker nodes in the cluster to see if upgrade would cause noncompliance with supported Kubernetes kubelet version skew policy.',
    insightStatus: { status, reason: status === 'PASSING' ? 'No kubelet version skew issues detected.' : 'Node kubelet versions are not compliant with the supported version skew policy.' },
    recommendation: 'Upgrade your worker nodes to match the Kubernetes version of your cluster control plane.',
    additionalInfo: { 'Kubernetes version skew policy': 'https://kubernetes.io/releases/version-skew-policy/#kubelet' },
    resources: resources.filter((r) => r.insightStatus.status !== 'PASSING'),
    categorySpecificSummary: {},
  };
}

function addonCompatibility(cluster: SimCluster, target: string): Draft {
  const details: Array<{ name: string; compatibleVersions: string[] }> = [];
  const resources: Draft['resources'] = [];
  for (const addon of cluster.addons.values()) {
    // kube-proxy ships one line per minor; its own skew insight covers it.
    if (addon.name === 'kube-proxy') continue;
    const entry = addonVersionEntry(addon.name, addon.version);
    if (entry?.minors.includes(target)) continue;
    const compatible = compatibleAddonVersions(addon.name, target).map((v) => v.addonVersion);
    details.push({ name: addon.name, compatibleVersions: compatible });
    resources.push({
      insightStatus: { status: 'ERROR', reason: `Add-on ${addon.name} ${addon.version} is not compatible with Kubernetes ${target}.` },
      arn: `arn:aws:eks:${cluster.region}:${cluster.arn.split(':')[4]}:addon/${cluster.name}/${addon.name}`,
    });
  }
  const status: InsightStatusValue = details.length ? 'ERROR' : 'PASSING';
  return {
    name: 'EKS add-on version compatibility',
    kubernetesVersion: target,
    description: 'Checks version of installed EKS add-ons to ensure they are compatible with the next version of Kubernetes.',
    insightStatus: { status, reason: status === 'PASSING' ? 'All installed EKS add-on versions are compatible with next Kubernetes version.' : 'Installed EKS add-on versions are not compatible with next Kubernetes version.' },
    recommendation: 'Upgrade your EKS add-on to a compatible version before upgrading your cluster.',
    additionalInfo: { 'Managing EKS add-ons': 'https://docs.aws.amazon.com/eks/latest/userguide/managing-add-ons.html' },
    resources,
    categorySpecificSummary: { addonCompatibilityDetails: details },
  };
}

function kubeProxySkew(cluster: SimCluster, target: string): Draft {
  const addon = cluster.addons.get('kube-proxy');
  const parsed = addon ? parseAddonVersion(addon.version) : undefined;
  const minor = parsed ? `${parsed.major}.${parsed.minor}` : undefined;
  const lag = minor ? minorDistance(minor, target) : 0;
  const status: InsightStatusValue = lag > allowedKubeletSkew(target) ? 'ERROR' : 'PASSING';
  return {
    name: 'kube-proxy version skew',
    kubernetesVersion: target,
    description: 'Checks version of kube-proxy in cluster to see if upgrade would cause noncompliance with supported Kubernetes kube-proxy version skew policy.',
    insightStatus: { status, reason: status === 'PASSING' ? `kube-proxy ${minor ?? ''} is within the supported version skew of Kubernetes ${target}.`.replace('  ', ' ') : `kube-proxy ${minor} would be ${lag} minor versions behind Kubernetes ${target}.` },
    recommendation: 'Upgrade your kube-proxy add-on to match the cluster control plane version.',
    additionalInfo: { 'Updating kube-proxy': 'https://docs.aws.amazon.com/eks/latest/userguide/managing-kube-proxy.html' },
    resources: [],
    categorySpecificSummary: {},
  };
}

function clusterHealth(cluster: SimCluster, target: string): Draft {
  const status: InsightStatusValue = cluster.healthIssues.length ? 'ERROR' : 'PASSING';
  return {
    name: 'Cluster health issues',
    kubernetesVersion: target,
    description: 'Checks for any cluster health issues that prevent successful upgrade to the next Kubernetes version on EKS.',
    insightStatus: { status, reason: status === 'PASSING' ? 'No cluster health issues detected.' : cluster.healthIssues.map((i) => `${i.code}: ${i.message}`).join(' ') },
    recommendation: 'Refer to the EKS cluster health documentation to resolve the issues before upgrading.',
    additionalInfo: { 'EKS cluster health': 'https://docs.aws.amazon.com/eks/latest/APIReference/API_ClusterHealth.html' },
    resources: [],
    categorySpecificSummary: {},
  };
}

/** Whether the workloads still call a deprecated API: while the linked object exists with the old apiVersion. */
function stillInUse(cluster: SimCluster, api: SimCluster['deprecatedApis'][number]): boolean {
  if (!api.resource) return true;
  const object = cluster.store.get(api.resource.resource, api.resource.name, api.resource.namespace);
  if (!object) return false;
  const applied = object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
  if (!applied) return true;
  try {
    return (JSON.parse(applied) as { apiVersion?: string }).apiVersion === api.resource.apiVersion;
  } catch {
    return true;
  }
}

function deprecatedApis(world: SimWorld, cluster: SimCluster): Draft[] {
  const drafts: Draft[] = [];
  const removals = [...new Set(cluster.deprecatedApis.map((a) => a.removedIn))].filter((v) => compareMinors(v, cluster.version) > 0);
  for (const removedIn of removals) {
    const apis = cluster.deprecatedApis.filter((a) => a.removedIn === removedIn && stillInUse(cluster, a));
    const level: InsightStatusValue = removedIn === nextMinor(cluster.version) ? 'ERROR' : 'WARNING';
    const status: InsightStatusValue = apis.length ? level : 'PASSING';
    drafts.push({
      name: `Deprecated APIs removed in Kubernetes v${removedIn}`,
      kubernetesVersion: removedIn,
      description: `Checks for usage of deprecated APIs that are scheduled for removal in Kubernetes v${removedIn}. Upgrading your cluster before migrating to the updated APIs supported by v${removedIn} could cause application impact.`,
      insightStatus: { status, reason: apis.length ? 'Deprecated API usage detected within last 30 days.' : 'No deprecated API usage detected within the last 30 days.' },
      recommendation: 'Update manifests and API clients to use newer Kubernetes APIs if applicable before upgrading to Kubernetes v' + removedIn + '.',
      additionalInfo: {
        'EKS update cluster documentation': 'https://docs.aws.amazon.com/eks/latest/userguide/update-cluster.html',
        [`Kubernetes v${removedIn} deprecation guide`]: 'https://kubernetes.io/docs/reference/using-api/deprecation-guide/',
      },
      resources: apis
        .filter((a) => a.resource)
        .map((a) => ({
          insightStatus: { status: level, reason: `${a.usage} is removed in Kubernetes v${removedIn}.` },
          kubernetesResourceUri: `${a.usage.split('/').slice(0, -1).join('/')}/namespaces/${a.resource!.namespace ?? 'default'}/${a.resource!.resource}/${a.resource!.name}`,
        })),
      categorySpecificSummary: {
        deprecationDetails: apis.map((a) => ({
          usage: a.usage,
          replacedWith: a.replacedWith,
          stopServingVersion: a.removedIn,
          startServingReplacementVersion: a.startServingReplacementVersion,
          clientStats: [{ userAgent: a.userAgent, numberOfRequestsLast30Days: a.requestsLast30Days, lastRequestTime: world.clock.now() - 3600_000 }],
        })),
      },
    });
  }
  return drafts;
}

/** All insights of a cluster (UPGRADE_READINESS, and ROLLBACK_READINESS after an in-place upgrade), now. */
export function computeInsights(world: SimWorld, cluster: SimCluster): SimInsight[] {
  const target = nextMinor(cluster.version);
  const now = world.clock.now();
  const refreshedAt = insightsRefreshedAt(cluster, now);
  const drafts = applyOverrides(
    cluster,
    [
      ...deprecatedApis(world, cluster),
      kubeletSkew(cluster, target),
      kubeProxySkew(cluster, target),
      addonCompatibility(cluster, target),
      clusterHealth(cluster, target),
      ...rollbackReadiness(world, cluster, now),
    ],
    { UPGRADE_READINESS: target, ROLLBACK_READINESS: openRollbackWindow(cluster, now)?.version },
  );
  return drafts.map(({ category = 'UPGRADE_READINESS', ...draft }) => {
    const id = insightId(cluster.name, draft.name, draft.kubernetesVersion, category);
    const seen = cluster.insightTransitions.get(id);
    if (!seen || seen.status !== draft.insightStatus.status) cluster.insightTransitions.set(id, { status: draft.insightStatus.status, at: now });
    return { ...draft, id, category, lastRefreshTime: refreshedAt, lastTransitionTime: cluster.insightTransitions.get(id)!.at };
  });
}
