import { COMPUTE_LABELS } from '../planning/compute-groups.js';
import type { AddonStatus, ClusterStatus, NodeGroupStatus, SupportStatus } from './cluster-status.js';

/**
 * The phrases every status renderer shares (Slack, terminal), so a support line or a skew reads the same
 * everywhere: "extended support until 2025-05-01 (37 days left)", "2 behind (≤2 allowed)".
 */
export function supportText(support: SupportStatus | undefined): string {
  if (!support || support.phase === 'unknown') return 'support unknown';
  if (support.phase === 'unsupported') return 'no longer supported by EKS';
  const until = support.phase === 'standard' ? support.endOfStandardSupport : support.endOfExtendedSupport;
  const days = support.daysLeft !== undefined ? ` (${support.daysLeft} day${support.daysLeft === 1 ? '' : 's'} left)` : '';
  return `${support.phase} support${until ? ` until ${until}` : ''}${days}`;
}

export function nextText(support: SupportStatus | undefined): string {
  if (!support?.nextMinor) return 'next minor unknown';
  const offered = support.nextOffered ? `${support.nextMinor} offered` : `${support.nextMinor} not offered yet`;
  return support.newestOffered && support.newestOffered !== support.nextMinor ? `${offered} (newest ${support.newestOffered})` : offered;
}

export function insightsText(status: ClusterStatus): string {
  const i = status.insights;
  if (!i) return 'insights not read';
  const asOf = i.asOf ? `, as of ${i.asOf.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `${i.error} error, ${i.warning} warning, ${i.passing} passing${i.unknown ? `, ${i.unknown} unknown` : ''}${asOf}`;
}

export function kubeletText(group: NodeGroupStatus): string {
  if (group.versions.length === 0) return 'no nodes';
  return group.versions.map((v) => `${v.kubelet} ×${v.count}`).join(', ');
}

export function skewText(group: NodeGroupStatus): string {
  if (group.nodes === 0) return '—';
  const newer = group.versions.some((v) => (v.behind ?? 0) < 0);
  if (newer) return `NEWER than control plane (never allowed)`;
  const behind = group.skew.maxBehind;
  const where = behind === 0 ? 'same as control plane' : `${behind} minor${behind === 1 ? '' : 's'} behind`;
  return group.skew.withinPolicy ? `${where} (≤${group.skew.allowed} allowed)` : `${where}: OUTSIDE the skew policy (≤${group.skew.allowed})`;
}

export function computeText(group: NodeGroupStatus): string {
  return COMPUTE_LABELS[group.computeType];
}

export function addonUpdateText(addon: AddonStatus, next: string | undefined): string {
  const parts: string[] = [];
  if (addon.updateAvailable) parts.push(`update available${addon.defaultForCurrent ? ` (${addon.defaultForCurrent})` : ''}`);
  if (addon.nextMinorUpdate === 'required') parts.push(`required for ${next ?? 'next'}`);
  else if (addon.nextMinorUpdate === 'recommended') parts.push(`recommended for ${next ?? 'next'}`);
  else if (addon.nextMinorUpdate === 'unknown') parts.push(`${next ?? 'next'}: unknown`);
  return parts.length > 0 ? parts.join('; ') : 'up to date';
}

/** "1.25×4, 1.24×1" — the kubelet minors of a whole cluster, for one-line rows. */
export function clusterKubeletSummary(status: ClusterStatus): string {
  const counts = new Map<string, number>();
  for (const group of status.nodes) for (const v of group.versions) counts.set(v.minor ?? v.kubelet, (counts.get(v.minor ?? v.kubelet) ?? 0) + v.count);
  if (counts.size === 0) return status.problems.some((p) => p.startsWith('nodes')) ? 'nodes not read' : 'no nodes';
  return [...counts].sort(([a], [b]) => b.localeCompare(a, undefined, { numeric: true })).map(([minor, n]) => `${minor}×${n}`).join(', ');
}

export function worstSkew(status: ClusterStatus): string {
  if (status.nodes.length === 0) return '—';
  if (status.nodes.some((g) => !g.skew.withinPolicy)) return 'OUTSIDE policy';
  const max = Math.max(0, ...status.nodes.map((g) => g.skew.maxBehind));
  return max === 0 ? 'none' : `${max} behind`;
}

export function addonSummary(status: ClusterStatus): string {
  if (status.addons.length === 0) return status.problems.some((p) => p.startsWith('add-ons')) ? 'not read' : 'none';
  const required = status.addons.filter((a) => a.nextMinorUpdate === 'required').length;
  const available = status.addons.filter((a) => a.updateAvailable).length;
  const parts = [required ? `${required} required for next` : '', available ? `${available} update${available === 1 ? '' : 's'}` : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : `${status.addons.length} up to date`;
}

export function jobText(status: ClusterStatus): string {
  const job = status.activeJob;
  return job ? `${job.from} → ${job.to} ${job.state} (step ${job.currentStep}, job ${job.jobId})` : 'none';
}

const KUBE_AREAS = ['nodes', 'pods', 'deployments', 'statefulsets', 'PodDisruptionBudgets', 'PersistentVolumeClaims', 'HorizontalPodAutoscalers', 'Karpenter'];

/**
 * An API that could not be reached, or that refused the bot's token: every area read from it fails alike. The words
 * are kube-api-error.ts's (unreachable, 401) and collect-kube.ts's (a connection that could not be set up).
 */
const API_UNREACHED = /the Kubernetes API could not be reached|did not accept the bot's EKS token|^Connecting to the Kubernetes API of /;

/**
 * The areas a cluster could not read, short: Kubernetes areas read "Kubernetes API" when the API itself could not be
 * reached (a card or a row reads only the nodes, so there is one area to say it of), or when three or more failed.
 */
export function unreadSummary(status: ClusterStatus): string {
  const problems = status.problems.map((problem) => {
    const at = problem.indexOf(': ');
    return { areas: problem.slice(0, at).split(', '), error: problem.slice(at + 2) };
  });
  const rest = problems.flatMap(({ areas }) => areas.filter((area) => !KUBE_AREAS.includes(area)));
  const kube = problems.flatMap(({ areas }) => areas.filter((area) => KUBE_AREAS.includes(area)));
  const unreached = problems.some(({ areas, error }) => API_UNREACHED.test(error) && areas.some((area) => KUBE_AREAS.includes(area)));
  return [...rest, ...(unreached || kube.length >= 3 ? ['Kubernetes API'] : kube)].join(', ');
}
