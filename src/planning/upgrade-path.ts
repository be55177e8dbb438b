import { compareMinor, formatMinor, hopsBetween, minorOfKubelet, nextMinor, parseMinor } from '../domain/minor-version.js';
import type { ClusterSnapshot } from './cluster-snapshot.js';

/**
 * From where to where an upgrade goes: the control plane's minor now, the target, and the hops in between (EKS
 * moves the control plane one minor per UpdateClusterVersion).
 */
export interface UpgradePath {
  from: string;
  to: string;
  /** The minors the control plane passes through, the target last: 1.25 → 1.28 gives 1.26, 1.27, 1.28. */
  hops: string[];
}

export function currentMinor(snapshot: ClusterSnapshot): string | undefined {
  if (!snapshot.cluster.ok) return undefined;
  const parsed = parseMinor(snapshot.cluster.value.version);
  return parsed ? formatMinor(parsed) : undefined;
}

export function nextMinorOf(version: string): string | undefined {
  const parsed = parseMinor(version);
  return parsed ? formatMinor(nextMinor(parsed)) : undefined;
}

/** undefined when the cluster's version is unknown or the target is not newer. */
export function upgradePath(snapshot: ClusterSnapshot, target: string): UpgradePath | undefined {
  const from = currentMinor(snapshot);
  const fromMinor = from ? parseMinor(from) : undefined;
  const toMinor = parseMinor(target);
  if (!from || !fromMinor || !toMinor || compareMinor(toMinor, fromMinor) <= 0) return undefined;
  return { from, to: formatMinor(toMinor), hops: hopsBetween(fromMinor, toMinor).map(formatMinor) };
}

/** "1.25" for v1.25.16-eks-2d5f260; undefined when unparsable. */
export function kubeletMinor(kubeletVersion: string): string | undefined {
  const parsed = minorOfKubelet(kubeletVersion);
  return parsed ? formatMinor(parsed) : undefined;
}

/** b − a in minors ("1.25" → "1.28" is 3). */
export function minorsBetween(a: string, b: string): number {
  const pa = parseMinor(a);
  const pb = parseMinor(b);
  if (!pa || !pb) return 0;
  return (pb.major - pa.major) * 100 + (pb.minor - pa.minor);
}

export function minorAtLeast(version: string, floor: string): boolean {
  const a = parseMinor(version);
  const b = parseMinor(floor);
  return !!a && !!b && compareMinor(a, b) >= 0;
}
