import { checkAddons } from './addon-checks.js';
import { checkAvailability } from './availability-checks.js';
import { checkComponents } from './component-checks.js';
import { checkControlPlane } from './control-plane-checks.js';
import { checkFargate } from './fargate-checks.js';
import { checkGitOps } from './gitops-checks.js';
import { checkInsights } from './insight-checks.js';
import { checkKarpenter } from './karpenter/karpenter-checks.js';
import { checkKarpenterPitfalls } from './karpenter/karpenter-pitfall-checks.js';
import { checkBudgetWindows } from './karpenter/karpenter-budget-window-checks.js';
import { checkKubeAccess } from './kube-access-check.js';
import { checkKubeletSkew } from './kubelet-skew-checks.js';
import { checkHelmReleases } from './helm-release-checks.js';
import { checkNodegroups } from './nodegroup-checks.js';
import { checkReadCoverage } from './read-coverage-check.js';
import { checkSelfManaged } from './self-managed-checks.js';
import { checkSubnets } from './subnet-checks.js';
import { checkCustomNetworking } from './custom-networking-checks.js';
import { checkLaunchTemplates } from './launch-template-checks.js';
import { checkWorkloads } from './workload-checks.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { sortFindings, type Finding } from '../../ports/finding.js';
import { applyWaivers } from '../../waivers/policy/apply-waivers.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { remedyOf } from './finding-codes.js';

/**
 * The product's full preflight: every check over one snapshot, for an upgrade to `target` (the final minor; checks
 * that care about the hops derive them). Pure: the same snapshot always gives the same findings, sorted errors
 * first. The upgrade job calls this too, per hop, with a fresh snapshot.
 */
export type Check = (snapshot: ClusterSnapshot, target: string, policy: PlanPolicy) => Finding[];

export const CHECKS: ReadonlyArray<{ area: string; check: Check }> = [
  { area: 'control plane', check: checkControlPlane },
  { area: 'subnets', check: (snapshot) => checkSubnets(snapshot) },
  { area: 'custom networking', check: (snapshot) => checkCustomNetworking(snapshot) },
  { area: 'launch templates', check: checkLaunchTemplates },
  { area: 'kubelet skew', check: checkKubeletSkew },
  { area: 'add-ons', check: checkAddons },
  { area: 'insights', check: checkInsights },
  { area: 'node groups', check: checkNodegroups },
  { area: 'self-managed groups', check: checkSelfManaged },
  { area: 'Karpenter', check: checkKarpenter },
  { area: 'Karpenter pitfalls', check: checkKarpenterPitfalls },
  { area: 'Karpenter budget schedules', check: checkBudgetWindows },
  { area: 'workloads', check: checkWorkloads },
  { area: 'workload availability', check: checkAvailability },
  { area: 'version-bound components', check: checkComponents },
  { area: 'Helm releases', check: checkHelmReleases },
  { area: 'Fargate', check: checkFargate },
  { area: 'GitOps and IaC', check: checkGitOps },
  { area: 'Kubernetes access', check: (snapshot) => checkKubeAccess(snapshot) },
  { area: 'read coverage', check: (snapshot) => checkReadCoverage(snapshot) },
];

export function runChecks(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  return sortFindings(applyWaivers(runChecksUnwaived(snapshot, target, policy), policy.waivers ?? [], snapshot.readAt));
}

/** Every check, before waivers (what a waiver is matched against). */
export function runChecksUnwaived(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  const findings: Finding[] = [];
  for (const { area, check } of CHECKS) {
    try {
      findings.push(...check(snapshot, target, policy));
    } catch (error) {
      // A check tripping over an object shape it did not expect must not hide every other finding.
      findings.push({
        code: 'EKS099',
        severity: 'warning',
        title: `The ${area} checks failed on this cluster's data: ${(error as Error).message}`,
        resources: [`cluster/${snapshot.name}`],
        remedy: remedyOf('EKS099'),
      });
    }
  }
  return sortFindings(findings);
}
