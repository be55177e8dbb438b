import type { KubeObject } from '../../../ports/kube-port.js';
import { describeTargetAmi, findAmi, minorOfPinnedAmi, nodeClassAmi } from '../../deciders/ami-parameters.js';
import type { ClusterSnapshot } from '../../cluster-snapshot.js';
import { plural, type Finding } from '../../../ports/finding.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../../plan-policy.js';
import { upgradePath } from '../../upgrade-path.js';
import { al2Finding } from '../nodegroup-checks.js';
import { remedyOf } from '../finding-codes.js';

/**
 * KAR0xx — Karpenter: NodePools whose budgets allow no drift (nodes would never be replaced), EC2NodeClasses that
 * pin an AMI (someone must point them at the next minor's AMI — the plan names it) versus aliases that follow the
 * control plane by themselves, AL2 classes, and NodePools whose class is missing.
 */
export interface DriftBudget {
  /** Always 0 for drift: a budget without schedule allowing 0 nodes for Drifted. */
  alwaysZero: boolean;
  /** Scheduled windows that block drift ("0 9 * * mon-fri for 8h"). */
  zeroWindows: string[];
  /** The budgets as written, for the plan ("10%", "1"). */
  nodes: string[];
}

export function driftBudget(nodePool: KubeObject): DriftBudget {
  const budgets: Array<{ nodes?: string; schedule?: string; duration?: string; reasons?: string[] }> = nodePool.spec?.disruption?.budgets ?? [{ nodes: '10%' }];
  const forDrift = budgets.filter((b) => !b.reasons || b.reasons.includes('Drifted'));
  const zero = (b: { nodes?: string }) => /^0+%?$/.test(String(b.nodes ?? '10%').trim());
  return {
    alwaysZero: forDrift.some((b) => !b.schedule && zero(b)),
    zeroWindows: forDrift.filter((b) => b.schedule && zero(b)).map((b) => `"${b.schedule}" for ${b.duration ?? '?'}`),
    nodes: forDrift.map((b) => String(b.nodes ?? '10%')),
  };
}

export function nodePoolsOfClass(nodePools: KubeObject[], className: string): KubeObject[] {
  return nodePools.filter((pool) => (pool.spec?.template?.spec?.nodeClassRef?.name ?? 'default') === className);
}

export function checkKarpenter(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  const karpenter = snapshot.kube.karpenter.ok ? snapshot.kube.karpenter.value : undefined;
  if (!karpenter) return [];
  const path = upgradePath(snapshot, target);
  const findings: Finding[] = [];
  const classes = new Set(karpenter.nodeClasses.map((c) => c.metadata.name));

  for (const pool of karpenter.nodePools) {
    const ref = `nodepool/${pool.metadata.name}`;
    const budget = driftBudget(pool);
    if (budget.alwaysZero) {
      findings.push({
        code: 'KAR001',
        severity: 'warning',
        title: `NodePool ${pool.metadata.name} allows 0 drift disruptions (budgets ${budget.nodes.map((n) => `nodes: "${n}"`).join(', ')}): its nodes would never be replaced`,
        resources: [ref],
        remedy: `The job sets its budget to nodes: "${policy.upgradeBudget}" for the drift and restores it afterwards; if you upgrade by hand, raise the budget first (kubectl patch nodepool ${pool.metadata.name} --type merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"${policy.upgradeBudget}"}]}}}').`,
      });
    } else if (budget.zeroWindows.length > 0) {
      findings.push({
        code: 'KAR001',
        severity: 'info',
        title: `NodePool ${pool.metadata.name} blocks drift during ${budget.zeroWindows.join(', ')}`,
        resources: [ref],
        remedy: 'Run the data-plane step outside those windows, or expect the drift to pause during them.',
      });
    }
    const className = pool.spec?.template?.spec?.nodeClassRef?.name;
    if (className && !classes.has(className)) {
      findings.push({
        code: 'KAR005',
        severity: 'warning',
        title: `NodePool ${pool.metadata.name} refers to EC2NodeClass ${className}, which does not exist`,
        resources: [ref],
        remedy: `Create EC2NodeClass ${className} or point the NodePool at an existing class; Karpenter cannot launch nodes for it.`,
      });
    }
  }

  for (const nodeClass of karpenter.nodeClasses) {
    const ref = `ec2nodeclass/${nodeClass.metadata.name}`;
    const ami = nodeClassAmi(nodeClass);
    const pools = nodePoolsOfClass(karpenter.nodePools, nodeClass.metadata.name).map((p) => p.metadata.name);
    const users = pools.length > 0 ? ` (NodePool ${pools.join(', ')})` : '';
    if (!path) continue;
    // Same classification as the Karpenter step (decide-ami-action.ts): id, name and SSM-parameter terms are pinned
    // and the job points them at the target AMI id; tag selectors are left to the operator.
    if (ami.selection === 'id' || ami.selection === 'name' || ami.selection === 'ssm') {
      const pinnedMinors = ami.pinned.map((p) => minorOfPinnedAmi(snapshot, nodeClass, p));
      const parameters = ((nodeClass.spec?.amiSelectorTerms ?? []) as Array<Record<string, unknown>>).filter((t) => typeof t.ssmParameter === 'string').map((t) => `SSM parameter ${String(t.ssmParameter)}`);
      const pinnedText = [...ami.pinned.map((p, i) => `${p}${pinnedMinors[i] ? ` (the ${pinnedMinors[i]} AMI)` : ''}`), ...parameters].join(', ');
      const next = ami.family ? describeTargetAmi(findAmi(snapshot, path.to, ami.family, ami.arch), path.to, ami.family, ami.arch) : `an AMI built for ${path.to}`;
      findings.push({
        code: 'KAR002',
        severity: 'warning',
        title: `EC2NodeClass ${nodeClass.metadata.name}${users} pins ${pinnedText}: its nodes stay there until it points at ${next}`,
        resources: [ref, ...pools.map((p) => `nodepool/${p}`)],
        remedy: `The job sets amiSelectorTerms to the ${path.hops.length > 1 ? 'AMI of each hop' : `${path.to} AMI`} in the data-plane step and follows the drift at nodes: "${policy.upgradeBudget}"; by hand: kubectl edit ec2nodeclass ${nodeClass.metadata.name} and replace the id.`,
      });
    } else if (ami.selection === 'alias') {
      const pinnedRelease = !ami.alias!.endsWith('@latest');
      findings.push({
        code: 'KAR003',
        severity: 'info',
        title: `EC2NodeClass ${nodeClass.metadata.name}${users} follows the alias ${ami.alias}: its nodes drift to the ${path.hops[0]} AMI by themselves within ~10 minutes of the control-plane upgrade${pinnedRelease ? ' (same AMI release, built for the new minor)' : ''}`,
        resources: [ref, ...pools.map((p) => `nodepool/${p}`)],
        remedy: `Nothing to change; the pace is the NodePool budget (the job sets nodes: "${policy.upgradeBudget}" while it watches). To hold nodes back, set the budget to nodes: "0" before the control-plane upgrade.`,
      });
    } else if (ami.selection === 'tags') {
      findings.push({
        code: 'KAR003',
        severity: 'info',
        title: `EC2NodeClass ${nodeClass.metadata.name}${users} selects its AMI by tags: the job leaves it to you; make sure it resolves to an AMI built for ${path.to}`,
        resources: [ref],
        remedy: `Tag the ${path.to} AMI so the selector finds it (or pin its id); Karpenter then drifts the nodes.`,
      });
    }
    if (ami.family === 'AL2') findings.push(...al2Finding(ref, `EC2NodeClass ${nodeClass.metadata.name} uses amiFamily AL2`, path.to, 'KAR004'));
  }
  const nodeClaims = karpenter.nodeClaims.filter((claim) =>
    (claim.status?.conditions ?? []).some((c: any) => c.type === 'Drifted' && c.status === 'True'),
  );
  if (nodeClaims.length > 0) {
    findings.push({
      code: 'KAR006',
      severity: 'info',
      title: `${plural(nodeClaims.length, 'NodeClaim')} are already drifted and waiting to be replaced`,
      resources: nodeClaims.map((claim) => `nodeclaim/${claim.metadata.name}`),
      remedy: remedyOf('KAR006'),
    });
  }
  return findings;
}
