import { compareMinor, parseMinor } from '../domain/minor-version.js';
import { isBlocking, type Finding } from '../ports/finding.js';
import { ROLLBACK_STEP_ORDER, type PlanStep, type UpgradePlan } from '../ports/upgrade-plan.js';
import { valueOr, type ClusterSnapshot } from './cluster-snapshot.js';
import { dataPlaneSteps } from './data-plane-steps.js';
import { dataPlaneUnits } from './data-plane-units.js';
import { SKEW_RULE_TEXT } from './kubelet-skew.js';
import { addonOrder, decideAddonRollback } from './plan-addon-update.js';
import { planContext } from './plan-context.js';
import { DEFAULT_POLICY, type PlanPolicy } from './plan-policy.js';
import { formatUtc, type RollbackPreflight } from './rollback-preflight.js';
import { MINUTES } from './step-estimates.js';

/**
 * The rollback plan (issue 10), as `plan <cluster> --rollback` shows it and the rollback job runs it: one hop from
 * the cluster's version back one minor, in ROLLBACK_STEP_ORDER — rollback preflight (RBK codes), the data plane
 * back to N-1 with the strategies clusters.yaml gives (the same deciders as an upgrade, aimed one minor lower), the
 * add-ons N-1 does not support, the gate, the control plane with rollbackConfig, Fargate, verify. Pure.
 * Karpenter EC2NodeClasses are rolled back only where they pin an AMI (the N-1 AMI from SSM, before the control
 * plane); a class following an `@latest` alias drifts by itself once the control plane is back, so it gets no step.
 */
export function buildRollbackPlan(
  snapshot: ClusterSnapshot,
  to: string,
  preflight: RollbackPreflight,
  options: { policy?: PlanPolicy; timeoutMinutes: number },
): UpgradePlan {
  const policy = options.policy ?? DEFAULT_POLICY;
  const cluster = snapshot.name;
  const from = snapshot.cluster.ok ? snapshot.cluster.value.version : 'unknown';
  const findings: Finding[] = preflight.findings.map(({ forceable: _forceable, ...finding }) => ({ ...finding, remedy: finding.remedy ?? '' }));
  const steps: PlanStep[] = [
    {
      kind: 'preflight',
      phase: 'preflight',
      title: `Rollback preflight for ${from} → ${to}${preflight.window ? ` (window open until ${formatUtc(preflight.window.until)})` : ''}`,
      resource: `cluster/${cluster}`,
      from,
      to,
      estimateMinutes: MINUTES.preflight,
      actions: [],
      details: ['RBK checks and the ROLLBACK_READINESS insights; errors stop the rollback (an approver may Force past readiness insights, with a reason).'],
      commands: [`npx eks-upgrade plan ${cluster} --rollback`],
    },
    {
      kind: 'gate',
      phase: 'preflight',
      title: `Gate: approve rolling the control plane of ${cluster} back to ${to}`,
      resource: `cluster/${cluster}`,
      from,
      to,
      gate: `Roll the control plane of ${cluster} back to ${to}?`,
      estimateMinutes: 0,
      actions: [],
      details: ['After the data plane is back at the older minor; a control-plane rollback cannot be paused once started.'],
      commands: [],
    },
    {
      kind: 'control-plane',
      phase: 'control-plane',
      title: `Roll the control plane back ${from} → ${to}`,
      resource: `cluster/${cluster}`,
      from,
      to,
      estimateMinutes: MINUTES.controlPlane,
      actions: [{ resource: `cluster/${cluster}`, action: 'update-control-plane', from, to, reason: `EKS rolls the control plane back one minor within 7 days of an in-place upgrade: ${from} → ${to}` }],
      details: [`UpdateClusterVersion with rollbackConfig.timeoutMinutes ${options.timeoutMinutes} (a VersionRollback update), followed with DescribeUpdate until it ends.`],
      commands: [`aws eks update-cluster-version --name ${cluster} --kubernetes-version ${to} --rollback-config timeoutMinutes=${options.timeoutMinutes}`, `aws eks wait cluster-active --name ${cluster}`],
    },
  ];

  const target = parseMinor(to);
  for (const unit of dataPlaneUnits(snapshot)) {
    const minor = unit.minor ? parseMinor(unit.minor) : undefined;
    if (!minor || !target || compareMinor(minor, target) <= 0) continue;
    for (const step of dataPlaneSteps(snapshot, unit, to, policy)) {
      // A Karpenter class that follows an alias has nothing to do before the control plane moves back.
      if (step.kind === 'karpenter' && !step.actions.some((action) => action.action === 'pin-ami')) continue;
      if (step.kind === 'karpenter-budget') continue;
      steps.push({ ...step, title: step.title.replace(/\bto\b/, 'back to') });
    }
  }

  const addons = valueOr(snapshot.addons, []).slice().sort((a, b) => addonOrder(a.name, b.name));
  for (const addon of addons) {
    const catalog = addon.catalog[to];
    if (!catalog) continue;
    const decision = decideAddonRollback(addon.name, addon.version, to, catalog);
    if (!decision.next) continue;
    steps.push({
      kind: 'addons',
      phase: 'addons',
      title: `Add-on ${addon.name} ${addon.version} → ${decision.next} (not compatible with ${to})`,
      resource: `addon/${addon.name}`,
      from: addon.version,
      to: decision.next,
      estimateMinutes: MINUTES.addon,
      actions: [{ resource: `addon/${addon.name}`, action: 'update-addon', from: addon.version, to: decision.next, reason: decision.reason }],
      details: [`Before the control plane (EKS refuses the rollback while an add-on is newer than ${to}); add-ons compatible with ${to} are left as they are.`],
      commands: [`aws eks update-addon --cluster-name ${cluster} --addon-name ${addon.name} --addon-version ${decision.next} --resolve-conflicts ${policy.resolveConflicts}`],
    });
  }

  steps.push({
    kind: 'verify',
    phase: 'verify',
    title: `Verify ${to}: nodes within skew, deployments available, PDBs healthy`,
    resource: `cluster/${cluster}`,
    to,
    estimateMinutes: MINUTES.verify,
    actions: [],
    details: ['No kubelet newer than the control plane.'],
    commands: ['kubectl get nodes -o wide', 'kubectl get deploy,sts,pdb -A'],
  });
  steps.sort((a, b) => ROLLBACK_STEP_ORDER.indexOf(a.kind) - ROLLBACK_STEP_ORDER.indexOf(b.kind));
  const estimateMinutes = steps.reduce((sum, step) => sum + step.estimateMinutes, 0);
  return {
    cluster,
    region: snapshot.region,
    from,
    to,
    generatedAt: new Date(snapshot.readAt).toISOString(),
    // EKS's own refusals block; readiness insights are read again at the gate, after the node and add-on steps.
    blocking: isBlocking(preflight.findings.filter((finding) => !finding.forceable)),
    findings,
    hops: [{ from, to, steps, estimateMinutes }],
    skewRule: SKEW_RULE_TEXT,
    policySource: policy.source,
    incremental: { possible: false, dataPlaneHops: [], savesMinutes: 0, note: 'A rollback is one minor back: the data plane goes first, so kubelets are never newer than the control plane.' },
    estimateMinutes,
    context: planContext(snapshot, policy),
    rollback: { until: preflight.window?.until, timeoutMinutes: options.timeoutMinutes },
  };
}
