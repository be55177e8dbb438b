import { compareMinor, parseMinor } from '../../domain/minor-version.js';
import { isBlocking, type Finding } from '../../ports/finding.js';
import { ROLLBACK_STEP_ORDER, type PlanStep, type UpgradePlan } from '../../ports/upgrade-plan.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { dataPlaneSteps } from './data-plane-steps.js';
import { dataPlaneUnits } from './data-plane-units.js';
import { SKEW_RULE_TEXT } from '../kubelet-skew.js';
import { addonOrder, decideAddonRollback } from '../deciders/plan-addon-update.js';
import { planContext } from '../plan-context.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { formatUtc, type RollbackPreflight } from '../rollback-preflight.js';
import { MINUTES } from './step-estimates.js';
import { verifyStep } from './verify-step.js';

/**
 * The rollback plan (issue 10), as `plan <cluster> --rollback` shows it and the rollback job runs it: one hop from
 * the cluster's version back one minor, in ROLLBACK_STEP_ORDER — rollback preflight (RBK codes), the data plane
 * back to N-1 with the strategies clusters.yaml gives (the same deciders as an upgrade, aimed one minor lower), the
 * add-ons N-1 does not support, the gate, the control plane with rollbackConfig, Fargate, verify. Pure.
 * Karpenter EC2NodeClasses go back before the control plane: a pinned class to the terms the upgrade job recorded
 * (the N-1 AMI from SSM when nothing was recorded); a class following an alias is pinned to the alias's N-1 AMI from
 * SSM (its nodes drift back now, not after the control plane), and the alias is put back once the control plane is
 * at N-1.
 */
/** RBK codes that mean EKS will never roll this cluster back (rollback-preflight.ts). */
const IMPOSSIBLE = new Set(['RBK001', 'RBK002']);

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
    // Newest, not oldest: a group an upgrade left half-replaced (a guard stopped it) goes back while any node is newer.
    const minor = (unit.newest ?? unit.minor) ? parseMinor((unit.newest ?? unit.minor)!) : undefined;
    // A Karpenter class without nodes still goes back: pinned to N, its next node would be newer than the control plane.
    const emptyClass = unit.type === 'karpenter' && !minor;
    if (!emptyClass && (!minor || !target || compareMinor(minor, target) <= 0)) continue;
    // A rollback asks one approval, before the control plane goes back (its gate line): the data-plane lines carry
    // no question of their own, so the plan announces none the rollback job would not ask (issue 23).
    for (const { gate: _unasked, ...step } of dataPlaneSteps(snapshot, unit, to, policy)) {
      if (step.kind === 'karpenter-budget') continue;
      if (step.kind === 'karpenter' && step.actions.some((action) => action.action === 'follow-alias' || action.action === 'pinned-alias')) {
        steps.push(pinAliasBack(step, unit.name, to, policy.upgradeBudget));
        continue;
      }
      if (step.kind === 'karpenter' && step.actions.some((action) => action.action === 'pin-ami')) {
        steps.push({
          ...step,
          title: step.title.replace(/^Point EC2NodeClass (\S+) at /, 'Point EC2NodeClass $1 back at '),
          details: [`amiSelectorTerms go back to what the upgrade job recorded before it changed them; only when nothing was recorded, to the ${to} AMI from SSM.`, ...step.details.slice(1)],
        });
        continue;
      }
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

  steps.push(verifyStep(cluster, to, 'rollback'));
  steps.sort((a, b) => ROLLBACK_STEP_ORDER.indexOf(a.kind) - ROLLBACK_STEP_ORDER.indexOf(b.kind));
  // A rollback EKS refuses whatever anyone does (no in-place upgrade to undo, or the 7-day window closed) is not a
  // plan with steps: saying "13 steps, 1 h 24 min" for it would be false (issue 25).
  const refusal = preflight.findings.find((finding) => IMPOSSIBLE.has(finding.code) && !finding.forceable);
  const impossible = refusal ? { code: refusal.code, reason: refusal.title, remedy: refusal.remedy ?? '' } : undefined;
  const estimateMinutes = impossible ? 0 : steps.reduce((sum, step) => sum + step.estimateMinutes, 0);
  return {
    cluster,
    region: snapshot.region,
    from,
    to,
    generatedAt: new Date(snapshot.readAt).toISOString(),
    // EKS's own refusals block; readiness insights are read again at the gate, after the node and add-on steps.
    blocking: isBlocking(preflight.findings.filter((finding) => !finding.forceable)),
    findings,
    hops: impossible ? [] : [{ from, to, steps, estimateMinutes }],
    skewRule: SKEW_RULE_TEXT,
    policySource: policy.source,
    incremental: { possible: false, dataPlaneHops: [], savesMinutes: 0, note: 'A rollback is one minor back: the data plane goes first, so kubelets are never newer than the control plane.' },
    estimateMinutes,
    context: planContext(snapshot, policy),
    rollback: { until: preflight.window?.until, timeoutMinutes: options.timeoutMinutes, ...(impossible ? { impossible } : {}) },
  };
}

/** The rollback line of a class on an alias: pinned to N-1 for the node drift, the alias back after the control plane. */
function pinAliasBack(step: PlanStep, nodeClass: string, to: string, budget: string): PlanStep {
  const follow = step.actions.find((action) => action.action === 'follow-alias' || action.action === 'pinned-alias')!;
  const alias = /alias (\S+)/.exec(follow.reason)?.[1] ?? 'its alias';
  const pools = /NodePool (.+?) \(alias/.exec(step.title)?.[1] ?? '(none)';
  return {
    ...step,
    title: `Pin EC2NodeClass ${nodeClass} (alias ${alias}) to the ${to} AMI and drift NodePool ${pools} back at nodes: "${budget}"; the alias goes back on after the control plane`,
    gate: undefined,
    details: [
      `Kubelets may never be newer than the API server, so its nodes must be at ${to} before the control plane goes back; the alias would move them only after it. The job pins the class to the alias's ${to} image from SSM, follows the drift, and puts ${alias} back once the control plane is at ${to} (it then resolves to that same image: nothing drifts).`,
      ...step.details.slice(1),
    ],
    commands: [
      ...step.commands.filter((command) => command.startsWith('kubectl patch nodepool')),
      `kubectl patch ec2nodeclass ${nodeClass} --type merge -p '{"spec":{"amiSelectorTerms":[{"id":"<${to} AMI from SSM>"}]}}'`,
      'kubectl get nodeclaims -w',
      `kubectl patch ec2nodeclass ${nodeClass} --type merge -p '{"spec":{"amiSelectorTerms":[{"alias":"${alias}"}]}}'  # after the control plane`,
    ],
    actions: [{ ...follow, action: 'pin-ami', reason: `alias ${alias}: pinned to the ${to} AMI from SSM before the control plane goes back, the alias put back after it` }],
  };
}
