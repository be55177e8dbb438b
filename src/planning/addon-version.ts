import type { AddonInfo } from './cluster-snapshot.js';

/**
 * EKS add-on versions (`v1.19.3-eksbuild.1`) compared and chosen. Which version an add-on goes to on each hop: the
 * default EKS lists for the hop's minor, unless what is installed is already compatible and not older; the VPC CNI
 * moves one minor per update (EKS refuses bigger jumps), so its path goes through each minor in between.
 */
export interface AddonVersionParts {
  major: number;
  minor: number;
  patch: number;
  build: number;
}

const ADDON_VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?/;

export function parseAddonVersion(version: string): AddonVersionParts | undefined {
  const match = ADDON_VERSION.exec(version.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), build: Number(match[4] ?? 0) };
}

/** Negative when a is older than b; unparsable versions sort first (they are never "newer"). */
export function compareAddonVersions(a: string, b: string): number {
  const pa = parseAddonVersion(a);
  const pb = parseAddonVersion(b);
  if (!pa || !pb) return pa ? 1 : pb ? -1 : a.localeCompare(b);
  return pa.major - pb.major || pa.minor - pb.minor || pa.patch - pb.patch || pa.build - pb.build;
}

/** The version EKS would install on `minor`: its default, else the newest compatible one. */
export function defaultAddonVersion(addon: AddonInfo, minor: string): string | undefined {
  const entry = addon.catalog[minor];
  if (!entry) return undefined;
  return entry.defaultVersion ?? [...entry.versions].sort(compareAddonVersions).at(-1);
}

/** true / false when EKS said, undefined when the versions for `minor` were not read. */
export function isCompatible(addon: AddonInfo, version: string, minor: string): boolean | undefined {
  const entry = addon.catalog[minor];
  if (!entry) return undefined;
  return entry.versions.includes(version);
}

export const VPC_CNI = 'vpc-cni';

/**
 * The versions an add-on passes through to be right for `minor`, starting from `installed`; [] when nothing is
 * needed (already compatible and at least the default), undefined when the catalog for `minor` was not read or
 * offers nothing.
 */
export function addonPathFor(addon: AddonInfo, installed: string, minor: string): string[] | undefined {
  const target = defaultAddonVersion(addon, minor);
  if (!target) return undefined;
  if (isCompatible(addon, installed, minor) && compareAddonVersions(installed, target) >= 0) return [];
  if (addon.name !== VPC_CNI) return [target];
  return vpcCniSteps(addon, installed, target, minor);
}

/** One VPC CNI minor at a time: the newest build of each minor in between, then the target itself. */
function vpcCniSteps(addon: AddonInfo, installed: string, target: string, minor: string): string[] {
  const from = parseAddonVersion(installed);
  const to = parseAddonVersion(target);
  if (!from || !to || from.major !== to.major || to.minor - from.minor <= 1) return [target];
  const known = new Set<string>();
  for (const entry of Object.values(addon.catalog)) for (const version of entry.versions) known.add(version);
  const steps: string[] = [];
  for (let m = from.minor + 1; m < to.minor; m++) {
    const candidates = [...known].filter((v) => parseAddonVersion(v)?.minor === m && parseAddonVersion(v)?.major === from.major);
    const preferred = candidates.filter((v) => addon.catalog[minor]?.versions.includes(v));
    const pool = preferred.length > 0 ? preferred : candidates;
    const newest = pool.sort(compareAddonVersions).at(-1);
    // EKS lists no build of this minor: say so in the version itself rather than skipping a required stop.
    steps.push(newest ?? `v${from.major}.${m}.x`);
  }
  steps.push(target);
  return steps;
}

/** How many minors of the add-on's own version line lie between two versions (VPC CNI "more than one minor behind"). */
export function addonMinorGap(from: string, to: string): number {
  const a = parseAddonVersion(from);
  const b = parseAddonVersion(to);
  if (!a || !b || a.major !== b.major) return 0;
  return b.minor - a.minor;
}
