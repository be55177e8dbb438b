/**
 * A preflight finding: data, not prose. Every check returns these; the renderers (Block Kit, text, Markdown, JSON)
 * turn them into words. Codes are stable (registered in src/planning/checks/finding-codes.ts, documented in
 * docs/finding-codes.md) so teams can grep for them, silence them in tickets and diff plans over time; the prefix
 * names the area (EKS control plane, NET subnets, ADD add-ons, NG node groups, KAR Karpenter, K8S nodes and
 * workloads, FRG Fargate, INS upgrade insights, OPS GitOps/IaC).
 */
import type { WaivedBy } from '../waivers/model/waiver.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  code: string;
  severity: Severity;
  title: string;
  /** What the finding is about, kubectl-style: `deployment/orders/orders`, `nodegroup/custom`, `subnet/subnet-0ab (us-west-2a)`. */
  resources: string[];
  /** What to do about it, as an instruction (a command where one exists). */
  remedy: string;
  /** Set when a waiver in force covers it (src/waivers/policy/apply-waivers.ts): shown, but no longer blocking. */
  waived?: WaivedBy;
}

export const SEVERITY_ORDER: readonly Severity[] = ['error', 'warning', 'info'];

/** Errors block the upgrade (the job stops its hop on them unless forced or waived); warnings and infos are shown. */
export function isBlocking(findings: readonly Pick<Finding, 'severity' | 'waived'>[]): boolean {
  return findings.some((finding) => finding.severity === 'error' && !finding.waived);
}

/** The errors no waiver covers: what blocks. */
export function unwaivedErrors<T extends Pick<Finding, 'severity' | 'waived'>>(findings: readonly T[]): T[] {
  return findings.filter((finding) => finding.severity === 'error' && !finding.waived);
}

/** Errors first, then warnings, then infos; within a severity by code, then title (stable output for snapshots). */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      a.code.localeCompare(b.code) ||
      a.title.localeCompare(b.title),
  );
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity]++;
  return counts;
}

/** "2 errors, 1 warning" — the counts a headline needs, zeroes left out. */
export function describeCounts(findings: readonly Finding[]): string {
  const counts = countBySeverity(findings);
  const parts = SEVERITY_ORDER.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}${counts[s] === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(', ') : 'no findings';
}

/** Helper for checks: a plural noun with its count ("1 node", "3 nodes"). */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
