/**
 * Kubernetes minor versions ("1.31") as the product speaks them. EKS only ever moves the control plane
 * one minor at a time, so most logic here is about distances between minors.
 */
export interface MinorVersion {
  major: number;
  minor: number;
}

const MINOR_PATTERN = /^v?(\d+)\.(\d+)$/;
// status.nodeInfo.kubeletVersion, e.g. v1.30.14-eks-f69f56f (Fargate nodes look the same).
const KUBELET_PATTERN = /^v?(\d+)\.(\d+)\.(\d+)/;

/** Parses "1.31" (or "v1.31"); returns undefined for anything else, so callers can word their own error. */
export function parseMinor(text: string): MinorVersion | undefined {
  const match = MINOR_PATTERN.exec(text.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** Minor of a kubelet / gitVersion string such as v1.30.14-eks-f69f56f. */
export function minorOfKubelet(version: string): MinorVersion | undefined {
  const match = KUBELET_PATTERN.exec(version.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

export function formatMinor(version: MinorVersion): string {
  return `${version.major}.${version.minor}`;
}

/** Negative when a is older than b. Only minors of the same major are meaningful for Kubernetes 1.x. */
export function compareMinor(a: MinorVersion, b: MinorVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

/** How many minors b is ahead of a (b − a). */
export function minorDistance(a: MinorVersion, b: MinorVersion): number {
  return (b.major - a.major) * 100 + (b.minor - a.minor);
}

export function nextMinor(version: MinorVersion): MinorVersion {
  return { major: version.major, minor: version.minor + 1 };
}

/** The minors strictly after `from` up to and including `to`: the hops of a multi-minor upgrade. */
export function hopsBetween(from: MinorVersion, to: MinorVersion): MinorVersion[] {
  const hops: MinorVersion[] = [];
  for (let v = nextMinor(from); compareMinor(v, to) <= 0; v = nextMinor(v)) hops.push(v);
  return hops;
}

export function parseMinorOrThrow(text: string): MinorVersion {
  const parsed = parseMinor(text);
  if (!parsed) throw new Error(`"${text}" is not a Kubernetes minor version like 1.31`);
  return parsed;
}
