import { decideAddonUpdate, addonOrder } from '../deciders/plan-addon-update.js';
import { greenNameFor } from '../deciders/decide-nodegroup-action.js';
import { SKEW_RULE_TEXT } from '../kubelet-skew.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { dataPlaneSteps } from './data-plane-steps.js';
import { dataPlaneUnits } from './data-plane-units.js';
import { isBlocking, plural, type Finding } from '../../ports/finding.js';
import { describeIncremental, planDeferral } from '../incremental-strategy.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { gateOffText, gatesOf, withGates } from './plan-gates.js';
import { runChecks } from '../checks/run-checks.js';
import { planContext } from '../plan-context.js';
import { MINUTES } from './step-estimates.js';
import { verifyStep } from './verify-step.js';
import { HOP_STEP_ORDER, type PlanHop, type PlanStep, type UpgradePlan } from '../../ports/upgrade-plan.js';
import { minorsBetween, upgradePath } from '../upgrade-path.js';
import { VPC_CNI } from '../addon-version.js';

/**
 * Builds the upgrade plan from a snapshot: the findings (every check, for the final target) and, hop by hop, the
 * steps in the order the job runs them — preflight, gate, control plane, add-ons (each from → to; the VPC CNI one
 * minor per update), the data plane per unit with its strategy, verify — with gates, manual steps and rough
 * durations. Pure; throws PlanRequestError when the request itself makes no sense (downgrade, unknown version).
 */
export class PlanRequestError extends Error {
  readonly code = 'plan_request_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'PlanRequestError';
  }
}

export function buildPlan(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): UpgradePlan {
  if (!snapshot.cluster.ok) throw new PlanRequestError(`cannot plan ${snapshot.name}: ${snapshot.cluster.error}`);
  const path = upgradePath(snapshot, target);
  const from = snapshot.cluster.value.version;
  if (!path) {
    throw new PlanRequestError(
      minorsBetween(from, target) === 0
        ? `${snapshot.name} is already at ${from}; there is nothing to plan (give --to a newer minor)`
        : `${target} is not newer than ${snapshot.name}'s ${from}; EKS upgrades only move forward`,
    );
  }
  const findings = runChecks(snapshot, path.to, policy);
  const units = dataPlaneUnits(snapshot);
  const deferral = planDeferral(units, path.hops);
  const addons = (snapshot.addons.ok ? snapshot.addons.value : []).slice().sort((a, b) => addonOrder(a.name, b.name));
  const addonAt = new Map(addons.map((addon) => [addon.name, addon.version]));
  // A blue/green group is replaced by its green clone each hop; later hops act on the clone.
  const unitNames = new Map(units.map((unit) => [unit.ref, unit.name]));

  let saved = 0;
  const hops: PlanHop[] = path.hops.map((to, index) => {
    const hopFrom = index === 0 ? path.from : path.hops[index - 1];
    // clusters.yaml gates.controlPlane false: no gate line (the job then has no gate step), and the control-plane
    // line says so.
    const askFirst = gatesOf(policy).controlPlane;
    const controlPlane = controlPlaneStep(snapshot.name, hopFrom, to);
    const steps: PlanStep[] = [
      preflightStep(snapshot, hopFrom, to, index === 0 ? findings : []),
      ...(askFirst ? [gateStep(snapshot.name, hopFrom, to)] : []),
      askFirst ? controlPlane : { ...controlPlane, gateOff: gateOffText('gate') },
    ];
    for (const addon of addons) {
      let version = addonAt.get(addon.name)!;
      const catalog = addon.catalog[to];
      if (!catalog) {
        // The versions for this minor could not be read: the step stays, with the version to be chosen then.
        steps.push(addonStep(snapshot.name, addon.name, version, `the default for ${to}`, to, policy, `the versions EKS offers for ${to} could not be read; the job picks the default then`));
        continue;
      }
      // The same decider the add-ons step runs, one update at a time (the VPC CNI one minor per update).
      for (let decision = decideAddonUpdate(addon.name, version, to, catalog); decision.next; decision = decideAddonUpdate(addon.name, version, to, catalog)) {
        steps.push(addonStep(snapshot.name, addon.name, version, decision.next, to, policy, decision.reason));
        version = decision.next;
      }
      addonAt.set(addon.name, version);
    }
    for (const unit of units) {
      if (!unit.minor || minorsBetween(unit.minor, to) <= 0) continue;
      const name = unitNames.get(unit.ref) ?? unit.name;
      for (const step of dataPlaneSteps(snapshot, { ...unit, minor: index === 0 ? unit.minor : maxMinor(unit.minor, hopFrom) }, to, policy, name)) {
        const greens = step.actions.filter((action) => action.action === 'blue-green');
        if (greens.length > 0) unitNames.set(unit.ref, greenNameFor(name, to));
        const laterHop = deferral.deferrableTo.get(unit.ref)?.get(to);
        if (laterHop) {
          step.deferrableTo = laterHop;
          saved += step.estimateMinutes;
        }
        steps.push(step);
      }
    }
    steps.push(verifyStep(snapshot.name, to, 'upgrade'));
    // The job runs a hop's steps in HOP_STEP_ORDER (a Karpenter budget line goes before the control plane).
    steps.sort((a, b) => HOP_STEP_ORDER.indexOf(a.kind) - HOP_STEP_ORDER.indexOf(b.kind));
    const gated = steps.map((step) => withGates(step, policy, snapshot.name));
    return { from: hopFrom, to, steps: gated, estimateMinutes: steps.reduce((sum, s) => sum + s.estimateMinutes, 0) };
  });

  const moving = [...deferral.movesIn.values()].filter((moves) => moves.length > 0).length;
  return {
    cluster: snapshot.name,
    region: snapshot.region,
    from: path.from,
    to: path.to,
    generatedAt: new Date(snapshot.readAt).toISOString(),
    blocking: isBlocking(findings),
    findings,
    hops,
    skewRule: SKEW_RULE_TEXT,
    policySource: policy.source,
    incremental: describeIncremental(path.hops, deferral, saved, moving),
    estimateMinutes: hops.reduce((sum, hop) => sum + hop.estimateMinutes, 0),
    context: planContext(snapshot, policy),
    ...(policy.guards?.length ? { guards: policy.guards } : {}),
  };
}

/** In the default plan a unit that moved in the previous hop starts this hop at that hop's minor. */
function maxMinor(a: string, b: string): string {
  return minorsBetween(a, b) > 0 ? b : a;
}

function preflightStep(snapshot: ClusterSnapshot, from: string, to: string, findings: Finding[]): PlanStep {
  const errors = findings.filter((f) => f.severity === 'error');
  return {
    kind: 'preflight',
    phase: 'preflight',
    title: `Preflight for ${from} → ${to}${findings.length > 0 ? `: ${errors.length > 0 ? `${plural(errors.length, 'blocking finding')} (${errors.map((f) => f.code).join(', ')})` : 'no blocking findings'}` : ': re-run the checks against the cluster as it is then'}`,
    resource: `cluster/${snapshot.name}`,
    from,
    to,
    estimateMinutes: MINUTES.preflight,
    actions: [],
    details: ['Errors stop the hop (an approver can Force with a reason); warnings are shown on the gate card.'],
    commands: [`npx eks-upgrade plan ${snapshot.name} --to ${to}`],
  };
}

function gateStep(cluster: string, from: string, to: string): PlanStep {
  return {
    kind: 'gate',
    phase: 'preflight',
    title: `Gate: approve the control-plane upgrade of ${cluster} to ${to}`,
    resource: `cluster/${cluster}`,
    from,
    to,
    gate: `Upgrade the control plane of ${cluster} to ${to}?`,
    estimateMinutes: 0,
    actions: [],
    details: ['Waits for an approver (Continue / Abort); a control-plane update cannot be paused once started.'],
    commands: [],
  };
}

function controlPlaneStep(cluster: string, from: string, to: string): PlanStep {
  return {
    kind: 'control-plane',
    phase: 'control-plane',
    title: `Upgrade the control plane ${from} → ${to}`,
    resource: `cluster/${cluster}`,
    from,
    to,
    estimateMinutes: MINUTES.controlPlane,
    actions: [{ resource: `cluster/${cluster}`, action: 'update-control-plane', from, to, reason: `EKS moves the control plane one minor per update: ${from} → ${to}` }],
    details: ['UpdateClusterVersion, followed with DescribeUpdate until it ends (~10 minutes); an update already in progress is adopted. Pods are not restarted.'],
    commands: [`aws eks update-cluster-version --name ${cluster} --kubernetes-version ${to}`, `aws eks wait cluster-active --name ${cluster}`],
  };
}

function addonStep(cluster: string, addon: string, from: string, to: string, minor: string, policy: PlanPolicy, reason: string): PlanStep {
  const conflicts = policy.resolveConflicts;
  return {
    kind: 'addons',
    actions: [{ resource: `addon/${addon}`, action: 'update-addon', from, to: to.startsWith('v') ? to : undefined, reason }],
    phase: 'addons',
    title: `Update add-on ${addon} ${from} → ${to}`,
    resource: `addon/${addon}`,
    from,
    to,
    estimateMinutes: addon === VPC_CNI ? MINUTES.vpcCniStep : MINUTES.addon,
    details: [`The version EKS lists for ${minor}${addon === VPC_CNI ? '; the VPC CNI moves one minor per update' : ''}; resolveConflicts ${conflicts}${conflicts === 'PRESERVE' ? ' keeps your configuration changes' : ''}.`],
    commands: [`aws eks update-addon --cluster-name ${cluster} --addon-name ${addon} --addon-version ${to.startsWith('v') ? to : `<default from: aws eks describe-addon-versions --addon-name ${addon} --kubernetes-version ${minor}>`} --resolve-conflicts ${conflicts}`, `aws eks wait addon-active --cluster-name ${cluster} --addon-name ${addon}`],
  };
}

