import { addonMinorGap, addonPathFor, defaultAddonVersion, isCompatible, VPC_CNI } from '../addon-version.js';
import type { AddonInfo, ClusterSnapshot } from '../cluster-snapshot.js';
import type { Finding } from '../../ports/finding.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { currentMinor, upgradePath } from '../upgrade-path.js';

/**
 * ADD0xx — EKS add-ons against every minor the control plane will pass through: which must be updated (and to
 * what, hop by hop), which are merely behind, which EKS offers nothing for, which are unhealthy. The VPC CNI moves
 * one minor per UpdateAddon, so a CNI several minors behind takes several updates.
 */
export interface AddonRoute {
  addon: string;
  installed: string;
  /** Per hop minor, the versions the add-on goes through on that hop ([] = nothing to do). */
  hops: Array<{ minor: string; versions: string[] }>;
  /** A hop minor whose catalog was read and offers nothing. */
  unavailableOn?: string;
  /** A hop minor whose catalog could not be read. */
  unknownOn?: string;
}

/** The add-on's path across the hops: each hop moves it to that minor's default when it is not compatible or older. */
export function addonRoute(addon: AddonInfo, hops: string[]): AddonRoute {
  const route: AddonRoute = { addon: addon.name, installed: addon.version, hops: [] };
  let version = addon.version;
  for (const minor of hops) {
    const entry = addon.catalog[minor];
    if (!entry) {
      route.unknownOn ??= minor;
      route.hops.push({ minor, versions: [] });
      continue;
    }
    if (entry.versions.length === 0) {
      route.unavailableOn ??= minor;
      route.hops.push({ minor, versions: [] });
      continue;
    }
    const versions = addonPathFor(addon, version, minor) ?? [];
    route.hops.push({ minor, versions });
    if (versions.length > 0) version = versions.at(-1)!;
  }
  return route;
}

const arrow = (route: AddonRoute) =>
  [route.installed, ...route.hops.flatMap((hop) => hop.versions.map((v, i) => (i === hop.versions.length - 1 ? `${v} (${hop.minor})` : v)))].join(' → ');

export function checkAddons(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  if (!snapshot.addons.ok) return [];
  const minor = currentMinor(snapshot);
  const path = upgradePath(snapshot, target);
  const findings: Finding[] = [];
  for (const addon of snapshot.addons.value) {
    const ref = `addon/${addon.name}`;
    if ((addon.status && addon.status !== 'ACTIVE') || addon.healthIssues.length > 0) {
      findings.push({
        code: 'ADD005',
        severity: 'error',
        title: `Add-on ${addon.name} is ${addon.status ?? 'unhealthy'}${addon.healthIssues.length ? `: ${addon.healthIssues.map((i) => `${i.code} ${i.message}`).join('; ')}` : ''}`,
        resources: [ref],
        remedy: `Resolve the add-on's health issues first (aws eks describe-addon --cluster-name ${snapshot.name} --addon-name ${addon.name}).`,
      });
    }
    if (minor && isCompatible(addon, addon.version, minor) === false) {
      findings.push({
        code: 'ADD003',
        severity: 'warning',
        title: `${addon.name} ${addon.version} is not a version EKS lists for the current ${minor}`,
        resources: [ref],
        remedy: `Update it to ${defaultAddonVersion(addon, minor) ?? 'a compatible version'} (the default for ${minor}) before anything else.`,
      });
    }
    if (!path) continue;
    const route = addonRoute(addon, path.hops);
    if (route.unavailableOn) {
      findings.push({
        code: 'ADD006',
        severity: 'error',
        title: `EKS offers no version of ${addon.name} for ${route.unavailableOn}`,
        resources: [ref],
        remedy: `Replace or remove the ${addon.name} add-on before upgrading to ${route.unavailableOn} (check the add-on's documentation for its successor).`,
      });
      continue;
    }
    const needed = route.hops.filter((hop) => hop.versions.length > 0);
    if (needed.length === 0) continue;
    let before = addon.version;
    let firstIncompatible: string | undefined;
    for (const hop of route.hops) {
      if (!firstIncompatible && isCompatible(addon, before, hop.minor) === false) firstIncompatible = hop.minor;
      if (hop.versions.length > 0) before = hop.versions.at(-1)!;
    }
    findings.push({
      code: firstIncompatible ? 'ADD001' : 'ADD002',
      severity: firstIncompatible ? 'warning' : 'info',
      title: firstIncompatible
        ? `${addon.name} ${addon.version} is not compatible with ${firstIncompatible}: update ${arrow(route)}`
        : `${addon.name} ${addon.version} is behind the default: update ${arrow(route)}`,
      resources: [ref],
      remedy: `The plan updates it right after each control-plane upgrade (UpdateAddon, resolveConflicts ${policy.resolveConflicts}): aws eks update-addon --cluster-name ${snapshot.name} --addon-name ${addon.name} --addon-version ${needed[0].versions[0]} --resolve-conflicts ${policy.resolveConflicts}`,
    });
    if (addon.name === VPC_CNI) {
      const last = needed.at(-1)!.versions.at(-1)!;
      const gap = addonMinorGap(addon.version, last);
      if (gap > 1) {
        findings.push({
          code: 'ADD004',
          severity: 'warning',
          title: `vpc-cni ${addon.version} is ${gap} minors behind ${last}; EKS updates the VPC CNI one minor at a time`,
          resources: [ref],
          remedy: `Allow for ${gap} successive updates (${arrow(route)}); each rolls the aws-node DaemonSet on every node.`,
        });
      }
    }
  }
  return findings;
}
