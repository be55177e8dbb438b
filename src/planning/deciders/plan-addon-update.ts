import type { AddonInfo } from '@aws-sdk/client-eks';

/**
 * Which version an EKS add-on moves to next for a target cluster minor. Pure. The goal is the target minor's
 * default version (DescribeAddonVersions' `defaultVersion`); the VPC CNI may only move one minor version per
 * update (EKS user guide), so it goes through the newest build of each minor in between.
 */
export interface AddonStepPlan {
  /** The version to update to now; undefined when there is nothing (more) to do. */
  next?: string;
  /** The version the add-on ends at for this hop. */
  goal?: string;
  reason: string;
}

// The VPC CNI first (pods need IPs), then DNS and kube-proxy, then the rest by name.
const PRIORITY = ['vpc-cni', 'coredns', 'kube-proxy'];

/** The order add-ons are updated in, by the plan and by the add-ons step alike. */
export function addonOrder(a: string, b: string): number {
  const rank = (name: string) => (PRIORITY.includes(name) ? PRIORITY.indexOf(name) : PRIORITY.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
  build: number;
}

/** v1.19.3-eksbuild.1 → {1, 19, 3, 1}; undefined when not in that shape. */
export function parseAddonVersion(version: string): ParsedVersion | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?/.exec(version);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), build: Number(match[4] ?? 0) };
}

export function compareAddonVersions(a: string, b: string): number {
  const pa = parseAddonVersion(a);
  const pb = parseAddonVersion(b);
  if (!pa || !pb) return a.localeCompare(b);
  return pa.major - pb.major || pa.minor - pb.minor || pa.patch - pb.patch || pa.build - pb.build;
}

/** Versions of `addonName` compatible with `clusterVersion`, and the default one, from DescribeAddonVersions. */
export function addonVersionsFor(infos: AddonInfo[], addonName: string, clusterVersion: string): { versions: string[]; defaultVersion?: string } {
  const info = infos.find((candidate) => candidate.addonName === addonName) ?? (infos.length === 1 ? infos[0] : undefined);
  const versions: string[] = [];
  let defaultVersion: string | undefined;
  for (const entry of info?.addonVersions ?? []) {
    const compat = entry.compatibilities?.find((c) => c.clusterVersion === clusterVersion);
    if (!compat || !entry.addonVersion) continue;
    versions.push(entry.addonVersion);
    if (compat.defaultVersion) defaultVersion = entry.addonVersion;
  }
  return { versions: versions.sort(compareAddonVersions), defaultVersion };
}

/** From DescribeAddonVersions' answer, as the add-ons step reads it just before it acts. */
export function planAddonUpdate(addonName: string, current: string, target: string, infos: AddonInfo[]): AddonStepPlan {
  return decideAddonUpdate(addonName, current, target, addonVersionsFor(infos, addonName, target));
}

/**
 * The add-on decider, shared by the planner (from the snapshot's catalog) and the add-ons step (from
 * DescribeAddonVersions): where `current` goes next on the way to the target's default.
 */
export function decideAddonUpdate(addonName: string, current: string, target: string, catalog: { versions: string[]; defaultVersion?: string }): AddonStepPlan {
  const { defaultVersion } = catalog;
  const versions = [...catalog.versions].sort(compareAddonVersions);
  if (!defaultVersion) {
    return { reason: `EKS names no default version of ${addonName} for ${target}; left at ${current}` };
  }
  const order = compareAddonVersions(current, defaultVersion);
  if (order === 0) return { goal: defaultVersion, reason: `${addonName} is already at ${defaultVersion}, the default for ${target}` };
  if (order > 0) {
    return { goal: current, reason: `${addonName} ${current} is newer than the ${target} default ${defaultVersion}; left as is` };
  }
  if (addonName === 'vpc-cni') {
    const from = parseAddonVersion(current);
    const to = parseAddonVersion(defaultVersion);
    if (from && to && from.major === to.major && to.minor - from.minor > 1) {
      const nextMinor = from.minor + 1;
      const between = versions.filter((v) => {
        const parsed = parseAddonVersion(v);
        return parsed?.major === from.major && parsed.minor === nextMinor;
      });
      const next = between.at(-1);
      if (next) {
        return { next, goal: defaultVersion, reason: `vpc-cni moves one minor version per update: ${current} → ${next} on the way to ${defaultVersion}` };
      }
    }
  }
  return { next: defaultVersion, goal: defaultVersion, reason: `${addonName} ${current} → ${defaultVersion}, the default for ${target}` };
}

/**
 * The add-on decider of a rollback (issue 10): an add-on whose version EKS lists for the older minor stays as it is;
 * one that is not (kube-proxy newer than the control plane, for one) goes to that minor's default. Pure.
 */
export function decideAddonRollback(addonName: string, current: string, target: string, catalog: { versions: string[]; defaultVersion?: string }): AddonStepPlan {
  if (catalog.versions.includes(current)) return { goal: current, reason: `${addonName} ${current} is compatible with ${target}; left as is` };
  if (!catalog.defaultVersion) return { reason: `EKS names no default version of ${addonName} for ${target}; left at ${current}` };
  return { next: catalog.defaultVersion, goal: catalog.defaultVersion, reason: `${addonName} ${current} is not compatible with ${target}: back to its default ${catalog.defaultVersion}` };
}

/** planAddonUpdate for a rollback: from DescribeAddonVersions' answer for the older minor. */
export function planAddonRollback(addonName: string, current: string, target: string, infos: AddonInfo[]): AddonStepPlan {
  return decideAddonRollback(addonName, current, target, addonVersionsFor(infos, addonName, target));
}
