import { compareMinors, knownMinors, patchVersionFor } from './version-catalog.js';

/**
 * The EKS add-on versions the simulator offers (DescribeAddonVersions), with the cluster minors each is compatible
 * with and which one is the default per minor. Versions the workshop seed shows are real: coredns
 * v1.8.7-eksbuild.10 → v1.9.3-eksbuild.22 (default for 1.26), kube-proxy v1.25.16-eksbuild.8 →
 * v1.26.15-eksbuild.24, vpc-cni v1.19.3-eksbuild.1 and aws-ebs-csi-driver v1.41.0-eksbuild.1 (both the newest for
 * 1.25/1.26); the rest follow the same pattern.
 */

export interface AddonVersionEntry {
  addonVersion: string;
  /** Cluster minors this version runs on. */
  minors: string[];
  /** Minors for which this is the default version. */
  defaultFor: string[];
}

export interface AddonDefinition {
  name: string;
  type: string;
  /** Newest first, as EKS lists them. */
  versions: AddonVersionEntry[];
}

interface Series {
  base: string; // v1.9.3
  builds: number[]; // newest last
  from: string;
  to: string;
  defaultFor?: string[];
}

function minorsBetween(from: string, to: string): string[] {
  return knownMinors().filter((m) => compareMinors(m, from) >= 0 && compareMinors(m, to) <= 0);
}

function fromSeries(series: Series[]): AddonVersionEntry[] {
  const entries: AddonVersionEntry[] = [];
  for (const s of series) {
    const minors = minorsBetween(s.from, s.to);
    s.builds.forEach((build, i) => {
      const newest = i === s.builds.length - 1;
      entries.push({ addonVersion: `${s.base}-eksbuild.${build}`, minors, defaultFor: newest ? (s.defaultFor ?? []) : [] });
    });
  }
  return entries.sort((a, b) => compareAddonVersions(b.addonVersion, a.addonVersion));
}

/** kube-proxy ships one line per minor, compatible with that minor only. */
function kubeProxyVersions(): AddonVersionEntry[] {
  const entries: AddonVersionEntry[] = [];
  for (const minor of knownMinors()) {
    const patch = patchVersionFor(minor);
    const builds =
      minor === '1.26'
        ? [2, 5, 10, 14, 18, 19, 24]
        : minor === '1.25'
          ? [1, 2, 5, 8]
          : [1, 2, 5, 11];
    if (minor === '1.26') {
      for (const older of ['v1.26.6-eksbuild.2', 'v1.26.7-eksbuild.2', 'v1.26.9-eksbuild.2', 'v1.26.11-eksbuild.1', 'v1.26.11-eksbuild.4', 'v1.26.13-eksbuild.2']) {
        entries.push({ addonVersion: older, minors: [minor], defaultFor: [] });
      }
    }
    builds.forEach((build, i) =>
      entries.push({ addonVersion: `v${patch}-eksbuild.${build}`, minors: [minor], defaultFor: i === builds.length - 1 ? [minor] : [] }),
    );
  }
  return entries.sort((a, b) => compareAddonVersions(b.addonVersion, a.addonVersion));
}

const CATALOG: AddonDefinition[] = [
  {
    name: 'coredns',
    type: 'networking',
    versions: fromSeries([
      { base: 'v1.8.7', builds: [1, 2, 3, 4, 6, 7, 10], from: '1.23', to: '1.25', defaultFor: ['1.23'] },
      { base: 'v1.9.3', builds: [2, 3, 5, 6, 7, 9, 10, 11, 15, 17, 19, 21, 22], from: '1.24', to: '1.26', defaultFor: ['1.24', '1.25', '1.26'] },
      { base: 'v1.10.1', builds: [1, 2, 4, 6, 7, 13, 18], from: '1.27', to: '1.29', defaultFor: ['1.27', '1.28'] },
      { base: 'v1.11.1', builds: [1, 3, 4, 6, 7, 13, 16, 20], from: '1.28', to: '1.31', defaultFor: ['1.29'] },
      { base: 'v1.11.3', builds: [1, 2, 5, 7, 9, 10], from: '1.29', to: '1.32', defaultFor: ['1.30', '1.31'] },
      { base: 'v1.11.4', builds: [1, 2, 3, 6, 9, 14, 17], from: '1.30', to: '1.33', defaultFor: ['1.32'] },
      { base: 'v1.12.1', builds: [1, 2, 3], from: '1.31', to: '1.34', defaultFor: ['1.33'] },
      { base: 'v1.12.3', builds: [1, 2], from: '1.32', to: '1.35', defaultFor: ['1.34', '1.35'] },
    ]),
  },
  { name: 'kube-proxy', type: 'networking', versions: kubeProxyVersions() },
  {
    name: 'vpc-cni',
    type: 'networking',
    versions: fromSeries([
      { base: 'v1.15.5', builds: [1], from: '1.23', to: '1.29', defaultFor: ['1.23', '1.24'] },
      { base: 'v1.16.4', builds: [2], from: '1.23', to: '1.30' },
      { base: 'v1.17.1', builds: [1], from: '1.23', to: '1.30' },
      { base: 'v1.18.6', builds: [1], from: '1.25', to: '1.32' },
      { base: 'v1.19.3', builds: [1], from: '1.25', to: '1.33', defaultFor: ['1.25', '1.26', '1.27', '1.28'] },
      { base: 'v1.19.6', builds: [7], from: '1.27', to: '1.34', defaultFor: ['1.29', '1.30', '1.31', '1.32'] },
      { base: 'v1.20.4', builds: [2], from: '1.28', to: '1.35', defaultFor: ['1.33', '1.34', '1.35'] },
    ]),
  },
  {
    name: 'aws-ebs-csi-driver',
    type: 'storage',
    versions: fromSeries([
      { base: 'v1.35.0', builds: [2], from: '1.23', to: '1.31', defaultFor: ['1.23', '1.24'] },
      { base: 'v1.38.1', builds: [2], from: '1.25', to: '1.32' },
      { base: 'v1.41.0', builds: [1], from: '1.25', to: '1.32', defaultFor: ['1.25', '1.26'] },
      { base: 'v1.45.0', builds: [2], from: '1.27', to: '1.34', defaultFor: ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32'] },
      { base: 'v1.48.0', builds: [1], from: '1.28', to: '1.35', defaultFor: ['1.33', '1.34', '1.35'] },
    ]),
  },
  {
    name: 'aws-efs-csi-driver',
    type: 'storage',
    versions: fromSeries([
      { base: 'v2.1.4', builds: [1], from: '1.24', to: '1.32', defaultFor: ['1.24', '1.25', '1.26', '1.27', '1.28'] },
      { base: 'v2.1.9', builds: [1], from: '1.26', to: '1.35', defaultFor: ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35'] },
    ]),
  },
  {
    name: 'eks-pod-identity-agent',
    type: 'security',
    versions: fromSeries([
      { base: 'v1.3.4', builds: [1], from: '1.24', to: '1.32', defaultFor: ['1.24', '1.25', '1.26', '1.27'] },
      { base: 'v1.3.7', builds: [2], from: '1.25', to: '1.34', defaultFor: ['1.28', '1.29', '1.30', '1.31', '1.32'] },
      { base: 'v1.3.8', builds: [2], from: '1.28', to: '1.35', defaultFor: ['1.33', '1.34', '1.35'] },
    ]),
  },
];

export function addonCatalog(): AddonDefinition[] {
  return CATALOG;
}

export function addonDefinition(name: string): AddonDefinition | undefined {
  return CATALOG.find((a) => a.name === name);
}

export function addonVersionEntry(name: string, version: string): AddonVersionEntry | undefined {
  return addonDefinition(name)?.versions.find((v) => v.addonVersion === version);
}

/** Versions of an add-on that run on a cluster minor, newest first. */
export function compatibleAddonVersions(name: string, clusterMinor: string): AddonVersionEntry[] {
  return (addonDefinition(name)?.versions ?? []).filter((v) => v.minors.includes(clusterMinor));
}

export function defaultAddonVersion(name: string, clusterMinor: string): string | undefined {
  const compatible = compatibleAddonVersions(name, clusterMinor);
  return (compatible.find((v) => v.defaultFor.includes(clusterMinor)) ?? compatible[0])?.addonVersion;
}

/** Parses v1.19.3-eksbuild.1 into numbers for ordering. */
export function parseAddonVersion(version: string): { major: number; minor: number; patch: number; build: number } | undefined {
  const match = /^v(\d+)\.(\d+)\.(\d+)-eksbuild\.(\d+)$/.exec(version);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), build: Number(match[4]) };
}

export function compareAddonVersions(a: string, b: string): number {
  const pa = parseAddonVersion(a);
  const pb = parseAddonVersion(b);
  if (!pa || !pb) return a.localeCompare(b);
  return pa.major - pb.major || pa.minor - pb.minor || pa.patch - pb.patch || pa.build - pb.build;
}
