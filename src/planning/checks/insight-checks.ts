import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot, type InsightInfo } from '../cluster-snapshot.js';
import { plural, type Finding, type Severity } from '../../ports/finding.js';
import { minorAtLeast } from '../upgrade-path.js';

/**
 * INS0xx — EKS upgrade insights and deprecated APIs. EKS scans 30 days of audit logs for calls to APIs that a
 * coming minor removes (INS001, one finding per API with the objects and the replacement); other non-passing
 * readiness insights (INS002) are mirrored: an ERROR one names what the upgrade breaks. EKS launched refusing
 * UpdateClusterVersion on ERROR insights and then "temporarily rolled back" that check (EKS user guide, update-cluster;
 * aws/containers-roadmap#2570), so the remedy does not claim EKS enforces it.
 * INS003 adds what insights miss: objects whose last-applied manifest still names a removed API (kubent's method;
 * it can report objects that are no longer applied that way, so it only warns).
 *
 * Only UPGRADE_READINESS insights speak about the upgrade. MISCONFIGURATION ones are shown as information (INS004):
 * worth fixing, not about versions. ROLLBACK_READINESS ones belong to rollback: right after a hop their ERROR is
 * expected (the nodes are at the new version) and must not block the next hop. INS005 says when the insights are
 * older than checks.insightsMaxAgeHours and a refresh could not be had.
 */

/** "/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui" → "horizontalpodautoscaler/ui/ui". */
export function resourceFromUri(uri: string): string {
  const match = /\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  if (match) return `${match[2].replace(/s$/, '')}/${match[1]}/${match[3]}`;
  const cluster = /\/([^/]+)\/([^/]+)$/.exec(uri);
  return cluster ? `${cluster[1].replace(/s$/, '')}/${cluster[2]}` : uri;
}

/** "/apis/autoscaling/v2beta2/horizontalpodautoscalers" → "autoscaling/v2beta2 horizontalpodautoscalers". */
export function describeApi(usage: string): string {
  const match = /^\/apis?\/(.+)\/([^/]+)$/.exec(usage);
  return match ? `${match[1]} ${match[2]}` : usage;
}

function replacementOf(replacedWith: string | undefined): string {
  if (!replacedWith) return 'its replacement API';
  return describeApi(replacedWith);
}

export function checkInsights(snapshot: ClusterSnapshot, target: string): Finding[] {
  if (!snapshot.insights.ok) return [];
  const findings: Finding[] = [...staleInsights(snapshot)];
  for (const insight of snapshot.insights.value) {
    if (insight.status === 'PASSING') continue;
    if (insight.category === 'MISCONFIGURATION') {
      findings.push(misconfiguration(snapshot.name, insight));
      continue;
    }
    if (insight.category !== 'UPGRADE_READINESS') continue;
    if (insight.deprecations.length > 0) {
      findings.push(...deprecationFindings(insight, target));
      continue;
    }
    const severity: Severity = insight.status === 'ERROR' ? 'error' : insight.status === 'WARNING' ? 'warning' : 'info';
    findings.push({
      code: 'INS002',
      severity,
      title: `Upgrade insight "${insight.name}" is ${insight.status}${insight.kubernetesVersion ? ` for ${insight.kubernetesVersion}` : ''}${insight.reason ? `: ${insight.reason}` : ''}`,
      resources: [`insight/${insight.id}`, ...insight.resources.map((r) => (r.uri ? resourceFromUri(r.uri) : r.arn ?? '')).filter(Boolean)],
      remedy: `${insight.recommendation ?? 'Fix what the insight names'} (aws eks describe-insight --cluster-name ${snapshot.name} --id ${insight.id})${insight.status === 'ERROR' ? '; EKS does not refuse the control-plane update for it today (blocking on ERROR insights was launched and then temporarily rolled back), but the upgrade will break what it names' : ''}.`,
    });
  }
  findings.push(...lastAppliedFindings(snapshot, target, findings));
  return findings;
}

function misconfiguration(cluster: string, insight: InsightInfo): Finding {
  return {
    code: 'INS004',
    severity: 'info',
    title: `Misconfiguration insight "${insight.name}" is ${insight.status}${insight.reason ? `: ${insight.reason}` : ''}`,
    resources: [`insight/${insight.id}`, ...insight.resources.map((r) => (r.uri ? resourceFromUri(r.uri) : r.arn ?? '')).filter(Boolean)],
    remedy: `${insight.recommendation ?? 'Fix what the insight names'} (aws eks describe-insight --cluster-name ${cluster} --id ${insight.id}); it does not block the upgrade.`,
  };
}

/** "2025-06-15 08:00 UTC": the insights' scan time as cards print it. */
export function formatInsightsTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

function staleInsights(snapshot: ClusterSnapshot): Finding[] {
  const refresh = snapshot.insightsRefresh;
  if (!refresh || (refresh.outcome !== 'timed-out' && refresh.outcome !== 'failed')) return [];
  const age = refresh.asOf !== undefined ? ` (${Math.round((snapshot.readAt - refresh.asOf) / 3600_000)} h old, as of ${formatInsightsTime(refresh.asOf)})` : '';
  return [
    {
      code: 'INS005',
      severity: 'warning',
      title: `The upgrade insights could not be refreshed before this plan${age}: ${refresh.note ?? 'no reason given'}`,
      resources: [`cluster/${snapshot.name}`],
      remedy: `Refresh them and plan again: aws eks start-insights-refresh --cluster-name ${snapshot.name}, then aws eks describe-insights-refresh --cluster-name ${snapshot.name} until COMPLETED.`,
    },
  ];
}

function deprecationFindings(insight: InsightInfo, target: string): Finding[] {
  const objects = insight.resources.filter((r) => r.uri).map((r) => resourceFromUri(r.uri!));
  return insight.deprecations.map((deprecation) => {
    const removedIn = deprecation.stopServingVersion ?? insight.kubernetesVersion;
    const removedOnTheWay = removedIn ? minorAtLeast(target, removedIn) : insight.status === 'ERROR';
    const mine = objects.filter((object) => {
      const plural = /\/([^/]+)$/.exec(deprecation.usage)?.[1]?.replace(/s$/, '');
      return !plural || object.startsWith(`${plural}/`);
    });
    const clients = deprecation.clients.map((c) => `${c.userAgent} (${plural(c.requestsLast30Days, 'request')} in 30 days)`);
    return {
      code: 'INS001',
      severity: removedOnTheWay ? 'error' : 'warning',
      title: `${describeApi(deprecation.usage)} is still in use and ${removedIn ? `is removed in ${removedIn}` : 'is being removed'}; use ${replacementOf(deprecation.replacedWith)}`,
      resources: [...(mine.length > 0 ? mine : objects), ...(clients.length > 0 ? [`clients: ${clients.join(', ')}`] : []), `insight/${insight.id}`],
      remedy: `Re-apply ${mine.length > 0 ? mine.join(', ') : 'the objects'} with ${replacementOf(deprecation.replacedWith)} (kubectl convert, or change the manifest in Git) and update the clients that call the old API${removedOnTheWay ? `, before the control plane reaches ${removedIn}` : ''}.`,
    } satisfies Finding;
  });
}

/** APIs removed in a minor (Kubernetes deprecation guide), for the kinds this product lists. */
const REMOVED_APIS: Array<{ apiVersion: string; kind: string; removedIn: string; replacement: string }> = [
  { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', removedIn: '1.25', replacement: 'autoscaling/v2' },
  { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', removedIn: '1.26', replacement: 'autoscaling/v2' },
  { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', removedIn: '1.25', replacement: 'policy/v1' },
  { apiVersion: 'extensions/v1beta1', kind: 'Deployment', removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta1', kind: 'Deployment', removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta2', kind: 'Deployment', removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta1', kind: 'StatefulSet', removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta2', kind: 'StatefulSet', removedIn: '1.16', replacement: 'apps/v1' },
];

function lastAppliedApi(object: KubeObject): string | undefined {
  const applied = object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
  if (!applied) return undefined;
  try {
    return (JSON.parse(applied) as { apiVersion?: string }).apiVersion;
  } catch {
    return undefined;
  }
}

function lastAppliedFindings(snapshot: ClusterSnapshot, target: string, fromInsights: Finding[]): Finding[] {
  const reported = new Set(fromInsights.flatMap((finding) => finding.resources));
  const objects: Array<[string, KubeObject]> = [
    ...valueOr(snapshot.kube.hpas, []).map((o): [string, KubeObject] => ['horizontalpodautoscaler', o]),
    ...valueOr(snapshot.kube.pdbs, []).map((o): [string, KubeObject] => ['poddisruptionbudget', o]),
    ...valueOr(snapshot.kube.deployments, []).map((o): [string, KubeObject] => ['deployment', o]),
    ...valueOr(snapshot.kube.statefulsets, []).map((o): [string, KubeObject] => ['statefulset', o]),
  ];
  const findings: Finding[] = [];
  for (const [kind, object] of objects) {
    const apiVersion = lastAppliedApi(object);
    const removed = REMOVED_APIS.find((api) => api.apiVersion === apiVersion && api.kind.toLowerCase() === kind);
    if (!removed || !minorAtLeast(target, removed.removedIn)) continue;
    const ref = `${kind}/${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
    if (reported.has(ref)) continue;
    findings.push({
      code: 'INS003',
      severity: 'warning',
      title: `${ref} was last applied as ${removed.apiVersion}, which is removed in ${removed.removedIn}; use ${removed.replacement}`,
      resources: [ref],
      remedy: `Change its manifest (Git, Helm chart) to ${removed.replacement} and re-apply it, or the next apply after the upgrade fails.`,
    });
  }
  return findings;
}
