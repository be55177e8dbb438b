/**
 * Where a cluster stands, as `status` shows it (Slack card, terminal, JSON): versions and support, nodes grouped by
 * compute type with kubelet versions and skew, add-ons against the current and next minor, insight counts, a
 * running upgrade job. Built from a snapshot by a pure function; `error` is set when the cluster could not be read
 * at all, `problems` names the areas that failed.
 */

import type { GuardStatus } from './guard-status.js';
import { maxKubeletLag } from '../planning/kubelet-skew.js';
import { compareAddonVersions, defaultAddonVersion, isCompatible } from '../planning/addon-version.js';
import { unreadAreas, type AddonInfo, type ClusterSnapshot } from '../planning/cluster-snapshot.js';
import { computeGroups, kubeletOf, type ComputeType } from '../planning/compute-groups.js';
import { currentMinor, kubeletMinor, minorsBetween, nextMinorOf } from '../planning/upgrade-path.js';

export interface KubeletCount {
  kubelet: string;
  minor?: string;
  count: number;
  /** Minors behind the control plane (negative: newer, which the skew policy never allows). */
  behind?: number;
}

export interface NodeGroupStatus {
  computeType: ComputeType;
  name: string;
  nodes: number;
  versions: KubeletCount[];
  skew: { maxBehind: number; allowed: number; withinPolicy: boolean };
}

export interface AddonStatus {
  name: string;
  version: string;
  status?: string;
  defaultForCurrent?: string;
  defaultForNext?: string;
  /** Installed is older than the default for the current minor (or not compatible with it). */
  updateAvailable: boolean;
  /** For the next minor: required (not compatible), recommended (older than its default), none, or unknown. */
  nextMinorUpdate: 'required' | 'recommended' | 'none' | 'unknown';
}

export interface SupportStatus {
  phase: 'standard' | 'extended' | 'unsupported' | 'unknown';
  endOfStandardSupport?: string;
  endOfExtendedSupport?: string;
  /** upgradePolicy.supportType: STANDARD auto-upgrades at the end of standard support. */
  upgradePolicy?: 'STANDARD' | 'EXTENDED';
  /** Days until the current support phase ends. */
  daysLeft?: number;
  nextMinor?: string;
  nextOffered?: boolean;
  newestOffered?: string;
}

export interface ActiveJobStatus {
  jobId: string;
  state: string;
  from: string;
  to: string;
  currentStep: string;
  threadUrl: string;
}

export interface ClusterStatus {
  name: string;
  region: string;
  version?: string;
  platformVersion?: string;
  status?: string;
  support?: SupportStatus;
  nodes: NodeGroupStatus[];
  addons: AddonStatus[];
  /** UPGRADE_READINESS insights only (rollback-readiness and misconfiguration ones say nothing about upgrading). */
  insights?: { passing: number; warning: number; error: number; unknown: number; asOf?: string };
  activeJob?: ActiveJobStatus;
  /**
   * Within 7 days of an in-place upgrade (issue 10): "rollback to 1.30 possible until …", with the
   * ROLLBACK_READINESS insights that would block it now (each with its resources).
   */
  rollback?: { to: string; until: string; text: string; blocking: string[] };
  /** `status <cluster>`: each guard's last evaluation by a job or a soak (src/report/guard-status.ts); absent without guards. */
  guards?: GuardStatus;
  /** The cluster could not be read at all. */
  error?: string;
  /** Areas that could not be read ("nodes: …"). */
  problems: string[];
}

const DAY_MS = 24 * 3600_000;
const isoDay = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10));

export function buildClusterStatus(snapshot: ClusterSnapshot, activeJob?: ActiveJobStatus): ClusterStatus {
  const base: ClusterStatus = { name: snapshot.name, region: snapshot.region, nodes: [], addons: [], problems: [], ...(activeJob ? { activeJob } : {}) };
  if (!snapshot.cluster.ok) return { ...base, error: snapshot.cluster.error };
  const cluster = snapshot.cluster.value;
  const minor = currentMinor(snapshot);
  const next = minor ? nextMinorOf(minor) : undefined;
  const byError = new Map<string, string[]>();
  for (const { area, error } of unreadAreas(snapshot)) byError.set(error, [...(byError.get(error) ?? []), area]);
  const problems = [...byError].map(([error, areas]) => `${areas.join(', ')}: ${error}`);
  return {
    ...base,
    version: cluster.version,
    platformVersion: cluster.platformVersion,
    status: cluster.status,
    support: supportOf(snapshot, minor, next),
    nodes: minor && snapshot.kube.nodes.ok ? nodeGroups(snapshot, minor) : [],
    addons: snapshot.addons.ok && minor ? snapshot.addons.value.map((addon) => addonStatus(addon, minor, next)) : [],
    ...(snapshot.insights.ok ? { insights: countInsights(snapshot) } : {}),
    problems,
  };
}

function supportOf(snapshot: ClusterSnapshot, minor: string | undefined, next: string | undefined): SupportStatus {
  const policy = snapshot.cluster.ok ? snapshot.cluster.value.supportType : undefined;
  if (!snapshot.versions.ok || !minor) return { phase: 'unknown', ...(policy ? { upgradePolicy: policy } : {}) };
  const offered = snapshot.versions.value;
  const entry = offered.find((v) => v.version === minor);
  const phase = entry?.support ?? 'unsupported';
  const end = phase === 'standard' ? entry?.endOfStandardSupport : phase === 'extended' ? entry?.endOfExtendedSupport : undefined;
  const live = offered.filter((v) => v.support !== 'unsupported');
  return {
    phase,
    ...(entry?.endOfStandardSupport ? { endOfStandardSupport: isoDay(entry.endOfStandardSupport) } : {}),
    ...(entry?.endOfExtendedSupport ? { endOfExtendedSupport: isoDay(entry.endOfExtendedSupport) } : {}),
    ...(policy ? { upgradePolicy: policy } : {}),
    ...(end !== undefined ? { daysLeft: Math.max(0, Math.ceil((end - snapshot.readAt) / DAY_MS)) } : {}),
    ...(next ? { nextMinor: next, nextOffered: live.some((v) => v.version === next) } : {}),
    ...(live.length > 0 ? { newestOffered: live.at(-1)!.version } : {}),
  };
}

function nodeGroups(snapshot: ClusterSnapshot, minor: string): NodeGroupStatus[] {
  const allowed = maxKubeletLag(minor);
  return computeGroups(snapshot).map((group) => {
    const counts = new Map<string, number>();
    for (const node of group.nodes) counts.set(kubeletOf(node), (counts.get(kubeletOf(node)) ?? 0) + 1);
    const versions = [...counts]
      .map(([kubelet, count]): KubeletCount => {
        const kubeletMinorValue = kubeletMinor(kubelet);
        return { kubelet, count, ...(kubeletMinorValue ? { minor: kubeletMinorValue, behind: minorsBetween(kubeletMinorValue, minor) } : {}) };
      })
      .sort((a, b) => (b.behind ?? 0) - (a.behind ?? 0) || a.kubelet.localeCompare(b.kubelet));
    const behinds = versions.map((v) => v.behind).filter((b): b is number => b !== undefined);
    const maxBehind = behinds.length > 0 ? Math.max(...behinds) : 0;
    return {
      computeType: group.type,
      name: group.name,
      nodes: group.nodes.length,
      versions,
      skew: { maxBehind, allowed, withinPolicy: behinds.every((b) => b >= 0 && b <= allowed) },
    };
  });
}

function addonStatus(addon: AddonInfo, minor: string, next: string | undefined): AddonStatus {
  const defaultForCurrent = defaultAddonVersion(addon, minor);
  const defaultForNext = next ? defaultAddonVersion(addon, next) : undefined;
  const compatibleNext = next ? isCompatible(addon, addon.version, next) : undefined;
  const updateAvailable =
    isCompatible(addon, addon.version, minor) === false || (!!defaultForCurrent && compareAddonVersions(addon.version, defaultForCurrent) < 0);
  const nextMinorUpdate: AddonStatus['nextMinorUpdate'] =
    compatibleNext === undefined
      ? 'unknown'
      : compatibleNext === false
        ? 'required'
        : defaultForNext && compareAddonVersions(addon.version, defaultForNext) < 0
          ? 'recommended'
          : 'none';
  return {
    name: addon.name,
    version: addon.version,
    ...(addon.status ? { status: addon.status } : {}),
    ...(defaultForCurrent ? { defaultForCurrent } : {}),
    ...(defaultForNext ? { defaultForNext } : {}),
    updateAvailable,
    nextMinorUpdate,
  };
}

function countInsights(snapshot: ClusterSnapshot): ClusterStatus['insights'] {
  const counts = { passing: 0, warning: 0, error: 0, unknown: 0 };
  const upgrade = (snapshot.insights.ok ? snapshot.insights.value : []).filter((insight) => !insight.category || insight.category === 'UPGRADE_READINESS');
  for (const insight of upgrade) {
    const key = insight.status.toLowerCase() as keyof typeof counts;
    counts[key in counts ? key : 'unknown']++;
  }
  const times = upgrade.map((insight) => insight.lastRefreshTime).filter((t): t is number => t !== undefined);
  return { ...counts, ...(times.length > 0 ? { asOf: new Date(Math.min(...times)).toISOString() } : {}) };
}
