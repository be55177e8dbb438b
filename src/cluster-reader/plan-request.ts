import { compareMinor, formatMinor, hopsBetween, parseMinor } from '../domain/minor-version.js';
import type { ClusterSnapshot } from '../planning/cluster-snapshot.js';

/**
 * Checks on a plan request before any planning, shared by the CLI and Slack: the hops to look add-on versions and
 * AMIs up for, and whether EKS offers the target at all (a target beyond the newest offered minor is refused with
 * the offered list rather than planned through versions that do not exist).
 */
export function hopsBetweenText(from: string, to: string): string[] {
  const a = parseMinor(from);
  const b = parseMinor(to);
  if (!a || !b || compareMinor(b, a) <= 0) return [];
  return hopsBetween(a, b).map(formatMinor);
}

/** A sentence when `to` is beyond what EKS offers (or the snapshot says nothing about it), else undefined. */
export function offeredProblem(snapshot: ClusterSnapshot, to: string): string | undefined {
  if (!snapshot.versions.ok) return undefined;
  const offered = snapshot.versions.value.filter((v) => v.support !== 'unsupported').map((v) => v.version);
  const newest = offered.at(-1);
  const target = parseMinor(to);
  const newestMinor = newest ? parseMinor(newest) : undefined;
  if (target && newestMinor && compareMinor(target, newestMinor) > 0) {
    return `EKS does not offer ${to} in ${snapshot.region}; the newest it offers is ${newest} (offered: ${offered.join(', ')}).`;
  }
  return undefined;
}
