import { decideAddonRollback, decideAddonUpdate, type AddonStepPlan } from '../deciders/plan-addon-update.js';
import { compareMinor, parseMinor } from '../../domain/minor-version.js';
import { VPC_CNI } from '../addon-version.js';
import { HOP_STEP_ORDER, ROLLBACK_STEP_ORDER, type StepKind } from '../../ports/upgrade-plan.js';
import type { DataPlaneUnit } from './data-plane-units.js';
import { minorsBetween } from '../upgrade-path.js';
import { MINUTES } from './step-estimates.js';

/**
 * Which way a plan and its job go: an upgrade (one minor forward per hop) or a rollback (issue 10: one minor back).
 * The one planner (build-plan.ts) and the one job-step builder (job-steps.ts) take a Direction and build every line
 * from structured data with its words; nothing is written for one direction and edited into the other.
 * - `order`: the kinds in the order a hop runs them (a rollback has no Karpenter budget hold: its Karpenter step sets
 *   the budget itself, and a line of a kind outside the order is left out);
 * - the deciders: which data-plane units move (`moves`) and which add-on versions a hop takes (`addonDecider`);
 * - `toward` and the sentences of the preflight, gate, control-plane, add-on and job-step lines;
 * - `linesAsk`: an upgrade's lines ask as plan-gates.ts says (clusters.yaml's gate switches, and the gates asked only
 *   when something blocks); a rollback asks one approval, before the control plane goes back (its gate line), so its
 *   data-plane lines carry no question of their own and the plan announces none the job would not ask (issue 23).
 */
export type DirectionName = 'upgrade' | 'rollback';

export interface LineWords {
  cluster: string;
  from: string;
  to: string;
}

export interface Direction {
  name: DirectionName;
  order: readonly StepKind[];
  /** How a data-plane title says where a resource goes: "in place to 1.31", "in place back to 1.30". */
  toward: 'to' | 'back to';
  linesAsk: boolean;
  /** Whether a data-plane unit has to move in a hop to `to` (its minor as the hop starts, for an upgrade). */
  moves(unit: DataPlaneUnit, to: string): boolean;
  addonDecider(addon: string, current: string, to: string, catalog: { versions: string[]; defaultVersion?: string }): AddonStepPlan;
  /** The line of an add-on whose versions for `to` could not be read (none: the rollback leaves it alone). */
  addonUnread?: string;
  preflight: { title(w: LineWords): string; details: string; command(w: LineWords): string };
  gate: { title(w: LineWords): string; question(w: LineWords): string; details: string };
  controlPlane: { title(w: LineWords): string; reason(w: LineWords): string; details(w: LineWords & { timeoutMinutes?: number }): string; command(w: LineWords & { timeoutMinutes?: number }): string };
  addon: { title(w: LineWords & { addon: string; next: string }): string; details(w: LineWords & { addon: string; resolveConflicts: string }): string; waits: boolean; minutes(addon: string): number };
  /** The title of the job's step of a kind (the step message in the thread). */
  jobStepTitle(kind: StepKind, cluster: string, to: string): string;
}

export const UPGRADE: Direction = {
  name: 'upgrade',
  order: HOP_STEP_ORDER,
  toward: 'to',
  linesAsk: true,
  moves: (unit, to) => Boolean(unit.minor) && minorsBetween(unit.minor!, to) > 0,
  addonDecider: decideAddonUpdate,
  addonUnread: 'the default for',
  preflight: {
    title: ({ from, to }) => `Preflight for ${from} → ${to}`,
    details: 'Errors stop the hop (an approver can Force with a reason); warnings are shown on the gate card.',
    command: ({ cluster, to }) => `npx eks-upgrade plan ${cluster} --to ${to}`,
  },
  gate: {
    title: ({ cluster, to }) => `Gate: approve the control-plane upgrade of ${cluster} to ${to}`,
    question: ({ cluster, to }) => `Upgrade the control plane of ${cluster} to ${to}?`,
    details: 'Waits for an approver (Continue / Abort); a control-plane update cannot be paused once started.',
  },
  controlPlane: {
    title: ({ from, to }) => `Upgrade the control plane ${from} → ${to}`,
    reason: ({ from, to }) => `EKS moves the control plane one minor per update: ${from} → ${to}`,
    details: () => 'UpdateClusterVersion, followed with DescribeUpdate until it ends (~10 minutes); an update already in progress is adopted. Pods are not restarted.',
    command: ({ cluster, to }) => `aws eks update-cluster-version --name ${cluster} --kubernetes-version ${to}`,
  },
  addon: {
    title: ({ addon, from, next }) => `Update add-on ${addon} ${from} → ${next}`,
    details: ({ addon, to, resolveConflicts }) =>
      `The version EKS lists for ${to}${addon === VPC_CNI ? '; the VPC CNI moves one minor per update' : ''}; resolveConflicts ${resolveConflicts}${resolveConflicts === 'PRESERVE' ? ' keeps your configuration changes' : ''}.`,
    waits: true,
    minutes: (addon) => (addon === VPC_CNI ? MINUTES.vpcCniStep : MINUTES.addon),
  },
  jobStepTitle(kind, cluster, to) {
    switch (kind) {
      case 'preflight':
        return `preflight for ${to}`;
      case 'gate':
        return `approval: control plane of ${cluster} to ${to}`;
      case 'karpenter-budget':
        return `Karpenter disruption budget for ${to}`;
      case 'control-plane':
        return `control plane to ${to}`;
      case 'addons':
        return `add-ons for ${to}`;
      case 'managed-nodegroups':
        return `managed node groups to ${to}`;
      case 'karpenter':
        return `Karpenter nodes to ${to}`;
      case 'self-managed':
        return `self-managed node groups to ${to}`;
      case 'fargate':
        return `Fargate workloads to ${to}`;
      case 'verify':
        return `verify ${to}`;
    }
  },
};

export const ROLLBACK: Direction = {
  name: 'rollback',
  order: ROLLBACK_STEP_ORDER,
  toward: 'back to',
  linesAsk: false,
  moves(unit, to) {
    // Newest, not oldest: a group an upgrade left half-replaced (a guard stopped it) goes back while any node is newer.
    const minor = unit.newest ?? unit.minor;
    // A Karpenter class without nodes still goes back: pinned to N, its next node would be newer than the control plane.
    if (unit.type === 'karpenter' && !minor) return true;
    const parsed = minor ? parseMinor(minor) : undefined;
    const target = parseMinor(to);
    return Boolean(parsed && target && compareMinor(parsed, target) > 0);
  },
  addonDecider: decideAddonRollback,
  preflight: {
    title: ({ from, to }) => `Rollback preflight for ${from} → ${to}`,
    details: 'RBK checks and the ROLLBACK_READINESS insights; errors stop the rollback (an approver may Force past readiness insights, with a reason).',
    command: ({ cluster }) => `npx eks-upgrade plan ${cluster} --rollback`,
  },
  gate: {
    title: ({ cluster, to }) => `Gate: approve rolling the control plane of ${cluster} back to ${to}`,
    question: ({ cluster, to }) => `Roll the control plane of ${cluster} back to ${to}?`,
    details: 'After the data plane is back at the older minor; a control-plane rollback cannot be paused once started.',
  },
  controlPlane: {
    title: ({ from, to }) => `Roll the control plane back ${from} → ${to}`,
    reason: ({ from, to }) => `EKS rolls the control plane back one minor within 7 days of an in-place upgrade: ${from} → ${to}`,
    details: ({ timeoutMinutes }) => `UpdateClusterVersion with rollbackConfig.timeoutMinutes ${timeoutMinutes} (a VersionRollback update), followed with DescribeUpdate until it ends.`,
    command: ({ cluster, to, timeoutMinutes }) => `aws eks update-cluster-version --name ${cluster} --kubernetes-version ${to} --rollback-config timeoutMinutes=${timeoutMinutes}`,
  },
  addon: {
    title: ({ addon, from, next, to }) => `Add-on ${addon} ${from} → ${next} (not compatible with ${to})`,
    details: ({ to }) => `Before the control plane (EKS refuses the rollback while an add-on is newer than ${to}); add-ons compatible with ${to} are left as they are.`,
    waits: false,
    minutes: () => MINUTES.addon,
  },
  jobStepTitle(kind, cluster, to) {
    switch (kind) {
      case 'preflight':
        return `rollback preflight for ${to}`;
      case 'gate':
        return `approval: roll the control plane of ${cluster} back to ${to}`;
      case 'control-plane':
        return `control plane back to ${to}`;
      case 'addons':
        return `add-ons not compatible with ${to} back to its defaults`;
      case 'managed-nodegroups':
        return `managed node groups back to ${to}`;
      case 'karpenter':
        return `Karpenter nodes back to ${to}`;
      case 'self-managed':
        return `self-managed node groups back to ${to}`;
      case 'fargate':
        return `Fargate workloads restarted at ${to}`;
      default:
        return `verify ${to}`;
    }
  },
};

export const DIRECTIONS: Record<DirectionName, Direction> = { upgrade: UPGRADE, rollback: ROLLBACK };
