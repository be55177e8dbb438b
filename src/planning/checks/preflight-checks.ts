import type { ClusterVersionInformation, Update } from '@aws-sdk/client-eks';
import type { WaivedBy } from '../../waivers/model/waiver-match.js';
import type { Finding } from '../../ports/finding.js';
import { versionParamOf } from '../deciders/decide-control-plane-action.js';

/**
 * The job's own preflight for one hop — the state checks only the job can make (is the cluster where this hop
 * starts, is an update of ours or someone's running, is the target offered) — plus the plan's checks
 * (src/planning/checks/run-checks.ts) mapped in. Pure. Errors stop the hop; the plan's errors are `forceable`: an approver
 * can override them with Force and a reason (a readiness insight, a skew the operator accepts); the job's own state
 * errors cannot be forced, since EKS itself would refuse the update.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface PreflightFinding {
  code: string;
  severity: Severity;
  title: string;
  resources: string[];
  remedy?: string;
  forceable: boolean;
  /** A waiver in force covers it: shown as waived, never blocking. */
  waived?: WaivedBy;
}

export interface PreflightSnapshot {
  cluster: string;
  status: string;
  version: string;
  hopFrom: string;
  target: string;
  offered: ClusterVersionInformation[];
  /** A version update already in progress (adopted by the control-plane step). */
  inProgress?: Update;
}

/**
 * The plan's codes the job's state checks replace: cluster not ACTIVE (EKS001), update in progress (EKS002 — the
 * job adopts a version update to its target instead of stopping), target not offered (EKS003).
 */
export const REPLACED_PLAN_CODES = new Set(['EKS001', 'EKS002', 'EKS003']);

/** The plan's findings for this hop, as preflight findings: its errors may be forced. */
export function fromPlanFindings(findings: readonly Finding[]): PreflightFinding[] {
  return findings
    .filter((finding) => !REPLACED_PLAN_CODES.has(finding.code))
    .map((finding) => ({ ...finding, forceable: finding.severity === 'error' }));
}

function isOffered(info: ClusterVersionInformation): boolean {
  return info.versionStatus !== 'UNSUPPORTED' && info.status !== 'unsupported';
}

export function checkHopPreflight(s: PreflightSnapshot): PreflightFinding[] {
  const findings: PreflightFinding[] = [];
  const adopting = s.inProgress && s.inProgress.type === 'VersionUpdate' && versionParamOf(s.inProgress) === s.target;

  if (adopting) {
    findings.push({
      code: 'UPG010',
      severity: 'info',
      title: `A version update of ${s.cluster} to ${s.target} (${s.inProgress!.id}) is already in progress; the control-plane step will follow it instead of starting another`,
      resources: [`update/${s.inProgress!.id}`],
      forceable: false,
    });
  } else if (s.inProgress) {
    findings.push({
      code: 'UPG002',
      severity: 'error',
      title: `An update of ${s.cluster} (${s.inProgress.type ?? 'unknown type'} ${s.inProgress.id}) is in progress`,
      resources: [`update/${s.inProgress.id}`],
      remedy: 'wait until it ends (aws eks describe-update), then start the upgrade again',
      forceable: false,
    });
  } else if (s.status !== 'ACTIVE') {
    findings.push({
      code: 'UPG001',
      severity: 'error',
      title: `${s.cluster} is ${s.status}, not ACTIVE`,
      resources: [`cluster/${s.cluster}`],
      remedy: 'wait until the cluster is ACTIVE (aws eks describe-cluster), then start the upgrade again',
      forceable: false,
    });
  }

  if (s.version === s.target) {
    findings.push({
      code: 'UPG011',
      severity: 'info',
      title: `${s.cluster} is already at ${s.target}; the control-plane step has nothing to do`,
      resources: [`cluster/${s.cluster}`],
      forceable: false,
    });
  } else if (s.version !== s.hopFrom) {
    findings.push({
      code: 'UPG003',
      severity: 'error',
      title: `${s.cluster} is at ${s.version}, but this hop goes from ${s.hopFrom} to ${s.target}`,
      resources: [`cluster/${s.cluster}`],
      remedy: `the cluster changed outside this job; start a new upgrade from ${s.version}`,
      forceable: false,
    });
  }

  const offered = s.offered.filter(isOffered).map((info) => info.clusterVersion ?? '').filter(Boolean);
  if (!offered.includes(s.target)) {
    findings.push({
      code: 'UPG004',
      severity: 'error',
      title: `EKS does not offer ${s.target} in this region (offered: ${offered.join(', ') || 'none'})`,
      resources: [`cluster/${s.cluster}`],
      remedy: `choose one of the offered versions`,
      forceable: false,
    });
  }

  return findings;
}

export function blockingFindings(findings: PreflightFinding[]): PreflightFinding[] {
  return findings.filter((finding) => finding.severity === 'error' && !finding.waived);
}

/** One line per finding, for the thread and the gate card. */
export function formatFinding(finding: PreflightFinding): string {
  const resources = finding.resources.length > 0 ? ` [${finding.resources.slice(0, 5).join(', ')}${finding.resources.length > 5 ? ', …' : ''}]` : '';
  const remedy = finding.remedy ? ` — ${finding.remedy}` : '';
  const waived = finding.waived ? ` (waived by ${finding.waived.by} until ${finding.waived.until}: ${finding.waived.reason})` : '';
  return `${finding.code} ${finding.severity}${finding.waived ? ', waived' : ''}: ${finding.title}${resources}${waived}${remedy}`;
}
