import type { Update } from '@aws-sdk/client-eks';
import { addonOrder } from '../deciders/plan-addon-update.js';
import { decideControlPlaneAction } from '../deciders/decide-control-plane-action.js';
import { greenNameFor } from '../deciders/decide-nodegroup-action.js';
import { SKEW_RULE_TEXT } from '../kubelet-skew.js';
import { valueOr, type AddonInfo, type ClusterSnapshot } from '../cluster-snapshot.js';
import { dataPlaneSteps } from './data-plane-steps.js';
import { dataPlaneUnits, type DataPlaneUnit } from './data-plane-units.js';
import { isBlocking, plural, type Finding } from '../../ports/finding.js';
import { describeIncremental, planDeferral } from '../incremental-strategy.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { gateOffText, gatesOf, withGates } from './plan-gates.js';
import { runChecks } from '../checks/run-checks.js';
import { planContext } from '../plan-context.js';
import { formatUtc, type RollbackPreflight } from '../rollback-preflight.js';
import { MINUTES } from './step-estimates.js';
import { verifyStep } from './verify-step.js';
import type { PlanHop, PlanStep, UpgradePlan } from '../../ports/upgrade-plan.js';
import { minorsBetween, upgradePath } from '../upgrade-path.js';
import { ROLLBACK, UPGRADE, type Direction, type LineWords } from './direction.js';

/**
 * The one planner, for both directions (direction.ts). An upgrade plan, from a snapshot: the findings (every check,
 * for the final target) and, hop by hop, the steps in the order the job runs them — preflight, gate, control plane,
 * add-ons (each from → to; the VPC CNI one minor per update), the data plane per unit with its strategy, verify —
 * with gates, manual steps and rough durations. A rollback plan (issue 10, `plan <cluster> --rollback`): one hop
 * back one minor, in ROLLBACK_STEP_ORDER — rollback preflight (RBK codes), the data plane back to N-1 with the
 * strategies clusters.yaml gives (the same deciders, aimed one minor lower), the add-ons N-1 does not support, the
 * gate, the control plane with rollbackConfig, Fargate, verify. Karpenter EC2NodeClasses go back before the control
 * plane: a pinned class to the terms the upgrade job recorded (the N-1 AMI from SSM when nothing was recorded); a
 * class following an alias is pinned to the alias's N-1 AMI from SSM (its nodes drift back now, not after the control
 * plane), and the alias is put back once the control plane is at N-1 (karpenter-lines.ts). Both build their hops with
 * hopSteps below. Pure; throws PlanRequestError when an upgrade request itself makes no sense (downgrade, unknown
 * version).
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
  const addonAt = new Map(sortedAddons(snapshot).map((addon) => [addon.name, addon.version]));
  // A blue/green group is replaced by its green clone each hop; later hops act on the clone.
  const unitNames = new Map(units.map((unit) => [unit.ref, unit.name]));

  let saved = 0;
  const hops: PlanHop[] = path.hops.map((to, index) => {
    const hopFrom = index === 0 ? path.from : path.hops[index - 1];
    const errors = findings.filter((f) => f.severity === 'error');
    const preflightNote = index > 0
      ? ': re-run the checks against the cluster as it is then'
      : `: ${errors.length > 0 ? `${plural(errors.length, 'blocking finding')} (${errors.map((f) => f.code).join(', ')})` : 'no blocking findings'}`;
    // In the default plan a unit that moved in the previous hop starts this hop at that hop's minor.
    const moving = units.map((unit) => (index === 0 || !unit.minor ? unit : { ...unit, minor: maxMinor(unit.minor, hopFrom) }));
    const steps = hopSteps({
      snapshot, direction: UPGRADE, policy, from: hopFrom, to, preflightNote, addonAt, units: moving,
      nameOf: (unit) => unitNames.get(unit.ref) ?? unit.name,
      updates: index === 0 ? valueOr(snapshot.updates, []) : [],
      onLine(unit, name, step) {
        if (step.actions.some((action) => action.action === 'blue-green')) unitNames.set(unit.ref, greenNameFor(name, to));
        const laterHop = deferral.deferrableTo.get(unit.ref)?.get(to);
        if (laterHop) {
          step.deferrableTo = laterHop;
          saved += step.estimateMinutes;
        }
      },
    });
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

/** RBK codes that mean EKS will never roll this cluster back (rollback-preflight.ts). */
const IMPOSSIBLE = new Set(['RBK001', 'RBK002']);

/** The rollback plan (issue 10), as `plan <cluster> --rollback` shows it and the rollback job runs it: one hop back. */
export function buildRollbackPlan(
  snapshot: ClusterSnapshot,
  to: string,
  preflight: RollbackPreflight,
  options: { policy?: PlanPolicy; timeoutMinutes: number },
): UpgradePlan {
  const policy = options.policy ?? DEFAULT_POLICY;
  const from = snapshot.cluster.ok ? snapshot.cluster.value.version : 'unknown';
  const findings: Finding[] = preflight.findings.map(({ forceable: _forceable, ...finding }) => ({ ...finding, remedy: finding.remedy ?? '' }));
  const steps = hopSteps({
    snapshot, direction: ROLLBACK, policy, from, to, timeoutMinutes: options.timeoutMinutes,
    preflightNote: preflight.window ? ` (window open until ${formatUtc(preflight.window.until)})` : '',
    addonAt: new Map(sortedAddons(snapshot).map((addon) => [addon.name, addon.version])),
    units: dataPlaneUnits(snapshot),
    updates: valueOr(snapshot.updates, []),
  });
  // A rollback EKS refuses whatever anyone does (no in-place upgrade to undo, or the 7-day window closed) is not a
  // plan with steps: saying "13 steps, 1 h 24 min" for it would be false (issue 25).
  const refusal = preflight.findings.find((finding) => IMPOSSIBLE.has(finding.code) && !finding.forceable);
  const impossible = refusal ? { code: refusal.code, reason: refusal.title, remedy: refusal.remedy ?? '' } : undefined;
  const estimateMinutes = impossible ? 0 : steps.reduce((sum, step) => sum + step.estimateMinutes, 0);
  return {
    cluster: snapshot.name,
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

interface HopInput {
  snapshot: ClusterSnapshot;
  direction: Direction;
  policy: PlanPolicy;
  from: string;
  to: string;
  /** What the preflight line adds to its title: the findings of an upgrade's first hop, a rollback's window. */
  preflightNote: string;
  /** Each add-on's version as this hop starts; the hop moves it on. */
  addonAt: Map<string, string>;
  units: DataPlaneUnit[];
  /** The unit's name in this hop (a blue/green group's green clone from the previous hop). */
  nameOf?: (unit: DataPlaneUnit) => string;
  /** Updates of the cluster as read (the control-plane decider's world); none for a later hop. */
  updates: Array<{ id: string; type: string; status: string; version?: string }>;
  timeoutMinutes?: number;
  onLine?: (unit: DataPlaneUnit, name: string, step: PlanStep) => void;
}

/** One hop's lines in the direction's order: preflight, gate, control plane, add-ons, data plane, verify. */
function hopSteps(input: HopInput): PlanStep[] {
  const { snapshot, direction: d, policy, from, to } = input;
  const words: LineWords = { cluster: snapshot.name, from, to };
  // clusters.yaml gates.controlPlane false: no gate line (the job then has no gate step), and the control-plane line
  // says so. A rollback always asks, once (direction.ts).
  const askFirst = !d.linesAsk || gatesOf(policy).controlPlane;
  const controlPlane = controlPlaneStep(input, words);
  const steps: PlanStep[] = [
    preflightStep(d, words, input.preflightNote),
    ...(askFirst ? [gateStep(d, words)] : []),
    askFirst ? controlPlane : { ...controlPlane, gateOff: gateOffText('gate') },
  ];
  for (const addon of sortedAddons(snapshot)) {
    let version = input.addonAt.get(addon.name)!;
    const catalog = addon.catalog[to];
    if (!catalog) {
      // The versions for this minor could not be read: an upgrade keeps the step, with the version chosen then.
      if (d.addonUnread) steps.push(addonStep(d, words, policy, { addon: addon.name, version, next: `${d.addonUnread} ${to}`, reason: `the versions EKS offers for ${to} could not be read; the job picks the default then`, unread: true }));
      continue;
    }
    // The same decider the add-ons step runs, one update at a time (the VPC CNI one minor per update).
    for (let decision = d.addonDecider(addon.name, version, to, catalog); decision.next && decision.next !== version; decision = d.addonDecider(addon.name, version, to, catalog)) {
      steps.push(addonStep(d, words, policy, { addon: addon.name, version, next: decision.next, reason: decision.reason }));
      version = decision.next;
    }
    input.addonAt.set(addon.name, version);
  }
  for (const unit of input.units) {
    if (!d.moves(unit, to)) continue;
    const name = input.nameOf?.(unit) ?? unit.name;
    for (const line of dataPlaneSteps(snapshot, unit, to, policy, d, name)) {
      // A kind the direction does not run (a rollback's Karpenter budget hold) has no line.
      if (!d.order.includes(line.kind)) continue;
      const { gate: _unasked, ...unasked } = line;
      const step: PlanStep = d.linesAsk ? line : unasked;
      input.onLine?.(unit, name, step);
      steps.push(step);
    }
  }
  steps.push(verifyStep(snapshot.name, to, d.name));
  // The job runs a hop's steps in the direction's order (an upgrade's Karpenter budget line goes before the control plane).
  return steps.sort((a, b) => d.order.indexOf(a.kind) - d.order.indexOf(b.kind));
}

function sortedAddons(snapshot: ClusterSnapshot): AddonInfo[] {
  return valueOr(snapshot.addons, []).slice().sort((a, b) => addonOrder(a.name, b.name));
}

/** In the default plan a unit that moved in the previous hop starts this hop at that hop's minor. */
function maxMinor(a: string, b: string): string {
  return minorsBetween(a, b) > 0 ? b : a;
}

function preflightStep(d: Direction, words: LineWords, note: string): PlanStep {
  return {
    kind: 'preflight',
    phase: 'preflight',
    title: `${d.preflight.title(words)}${note}`,
    resource: `cluster/${words.cluster}`,
    from: words.from,
    to: words.to,
    estimateMinutes: MINUTES.preflight,
    actions: [],
    details: [d.preflight.details],
    commands: [d.preflight.command(words)],
  };
}

function gateStep(d: Direction, words: LineWords): PlanStep {
  return {
    kind: 'gate',
    phase: 'preflight',
    title: d.gate.title(words),
    resource: `cluster/${words.cluster}`,
    from: words.from,
    to: words.to,
    gate: d.gate.question(words),
    estimateMinutes: 0,
    actions: [],
    details: [d.gate.details],
    commands: [],
  };
}

/**
 * The control-plane line, from the decider the control-plane step runs (decide-control-plane-action.ts) over the
 * cluster as read: the cluster at the hop's start, and the updates EKS lists for the first hop. A version update
 * already under way to the target is one the job adopts (the line says so); in every other case the job issues it.
 */
function controlPlaneStep(input: HopInput, words: LineWords): PlanStep {
  const { direction: d, from, to } = input;
  const decision = decideControlPlaneAction({
    clusterName: words.cluster,
    clusterVersion: from,
    hopFrom: from,
    target: to,
    updates: input.updates.map((update): Update => ({ id: update.id, type: update.type as Update['type'], status: update.status as Update['status'], params: update.version ? [{ type: 'Version', value: update.version }] : [] })),
    rollback: d.name === 'rollback',
  });
  const timed = { ...words, timeoutMinutes: input.timeoutMinutes };
  return {
    kind: 'control-plane',
    phase: 'control-plane',
    title: d.controlPlane.title(words),
    resource: `cluster/${words.cluster}`,
    from,
    to,
    estimateMinutes: MINUTES.controlPlane,
    actions: [{ resource: `cluster/${words.cluster}`, action: 'update-control-plane', from, to, reason: decision.action === 'adopt' ? decision.reason : d.controlPlane.reason(words) }],
    details: [d.controlPlane.details(timed)],
    commands: [d.controlPlane.command(timed), `aws eks wait cluster-active --name ${words.cluster}`],
  };
}

function addonStep(d: Direction, words: LineWords, policy: PlanPolicy, line: { addon: string; version: string; next: string; reason: string; unread?: boolean }): PlanStep {
  const { cluster, to } = words;
  const { addon, version, next } = line;
  const conflicts = policy.resolveConflicts;
  const pick = line.unread ? `<default from: aws eks describe-addon-versions --addon-name ${addon} --kubernetes-version ${to}>` : next;
  return {
    kind: 'addons',
    phase: 'addons',
    title: d.addon.title({ ...words, addon, from: version, next }),
    resource: `addon/${addon}`,
    from: version,
    to: next,
    estimateMinutes: d.addon.minutes(addon),
    actions: [{ resource: `addon/${addon}`, action: 'update-addon', from: version, to: line.unread ? undefined : next, reason: line.reason }],
    details: [d.addon.details({ ...words, addon, resolveConflicts: conflicts })],
    commands: [
      `aws eks update-addon --cluster-name ${cluster} --addon-name ${addon} --addon-version ${pick} --resolve-conflicts ${conflicts}`,
      ...(d.addon.waits ? [`aws eks wait addon-active --cluster-name ${cluster} --addon-name ${addon}`] : []),
    ],
  };
}
