import type { ClusterVersionInformation, InsightSummary, Update } from '@aws-sdk/client-eks';
import { checkKubeletSkew, SKEW_RULE_TEXT, type NodeVersion } from './kubelet-skew.js';
import { versionParamOf } from './decide-control-plane-action.js';

/**
 * The job's preflight for one hop, as a pure function from what was read to findings. Errors stop the hop; those
 * marked `forceable` can be overridden by an approver with Force and a reason (a readiness insight, a skew the
 * operator accepts); the others cannot (EKS itself would refuse the update).
 */
export type Severity = 'error' | 'warning' | 'info';

export interface PreflightFinding {
  code: string;
  severity: Severity;
  title: string;
  resources: string[];
  remedy?: string;
  forceable: boolean;
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
  /** undefined when the Kubernetes API could not be read. */
  nodes?: NodeVersion[];
  nodesError?: string;
  insights?: InsightSummary[];
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

  if (s.nodes) {
    const skew = checkKubeletSkew(s.nodes, s.target);
    if (skew.tooOld.length > 0) {
      findings.push({
        code: 'UPG005',
        severity: 'error',
        title: `${skew.tooOld.length} node(s) would be more than ${skew.maxLag} minors behind a ${s.target} control plane (${SKEW_RULE_TEXT})`,
        resources: skew.tooOld.map((node) => `node/${node.name} (${node.kubeletVersion})`),
        remedy: 'upgrade those nodes first, or Force with a reason if you accept the skew',
        forceable: true,
      });
    }
    if (skew.tooNew.length > 0) {
      findings.push({
        code: 'UPG006',
        severity: 'warning',
        title: `${skew.tooNew.length} node(s) run a kubelet newer than ${s.target}`,
        resources: skew.tooNew.map((node) => `node/${node.name} (${node.kubeletVersion})`),
        forceable: false,
      });
    }
  } else {
    findings.push({
      code: 'UPG007',
      severity: 'warning',
      title: `Could not read the nodes of ${s.cluster}${s.nodesError ? ` (${s.nodesError})` : ''}; kubelet skew was not checked`,
      resources: [`cluster/${s.cluster}`],
      forceable: false,
    });
  }

  for (const insight of s.insights ?? []) {
    const status = insight.insightStatus?.status;
    if (status !== 'ERROR' && status !== 'WARNING') continue;
    findings.push({
      code: 'UPG008',
      severity: status === 'ERROR' ? 'error' : 'warning',
      title: `Upgrade insight: ${insight.name ?? insight.id} (${status})${insight.insightStatus?.reason ? `: ${insight.insightStatus.reason}` : ''}`,
      resources: [`insight/${insight.id}`],
      remedy: status === 'ERROR' ? `fix what the insight names (aws eks describe-insight --id ${insight.id}), or Force with a reason` : undefined,
      forceable: true,
    });
  }
  return findings;
}

export function blockingFindings(findings: PreflightFinding[]): PreflightFinding[] {
  return findings.filter((finding) => finding.severity === 'error');
}

/** One line per finding, for the thread and the gate card. */
export function formatFinding(finding: PreflightFinding): string {
  const resources = finding.resources.length > 0 ? ` [${finding.resources.slice(0, 5).join(', ')}${finding.resources.length > 5 ? ', …' : ''}]` : '';
  const remedy = finding.remedy ? ` — ${finding.remedy}` : '';
  return `${finding.code} ${finding.severity}: ${finding.title}${resources}${remedy}`;
}
