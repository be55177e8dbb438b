import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { DisruptionReason } from '../karpenter-keys.js';
import { nextFiring, parseCron, parseGoDuration } from './cron-schedule.js';

/**
 * NodePool disruption budgets, exactly as karpenter.sh/v1 NodePool.GetAllowedDisruptionsByReason and
 * MustGetAllowedDisruptions compute them: the minimum over budgets that are active and name the reason (no reasons
 * = every reason); percentages of the pool's initialized nodes round UP; an inactive budget allows anything; a
 * misconfigured budget anywhere makes the whole pool allow 0.
 */
export interface Budget {
  nodes?: string;
  schedule?: string;
  duration?: string;
  reasons?: string[];
}

export const UNLIMITED = 2147483647; // math.MaxInt32, what Karpenter uses for "no budget applies"
const DEFAULT_BUDGETS: Budget[] = [{ nodes: '10%' }]; // the CRD's default when spec.disruption.budgets is absent
const NODES_PATTERN = /^((100|[0-9]{1,2})%|[0-9]+)$/;

export function budgetsOf(nodePool: KubeObject): Budget[] {
  const budgets = nodePool.spec?.disruption?.budgets;
  return Array.isArray(budgets) ? budgets : DEFAULT_BUDGETS;
}

/** Whether now falls in [a firing of the schedule, that firing + duration). Throws on a malformed budget. */
export function isBudgetActive(budget: Budget, now: number): boolean {
  if (budget.schedule === undefined && budget.duration === undefined) return true;
  if (budget.schedule === undefined || budget.duration === undefined) {
    throw new Error('schedule and duration must be set together');
  }
  const duration = parseGoDuration(budget.duration);
  const schedule = parseCron(budget.schedule);
  // Karpenter walks back by the duration and asks whether the next firing after that point has already happened.
  return nextFiring(schedule, now - duration, now) !== undefined;
}

function budgetValue(budget: Budget, numNodes: number, now: number): number {
  const nodes = String(budget.nodes ?? '10%');
  if (!NODES_PATTERN.test(nodes)) throw new Error(`nodes "${nodes}" is neither a count nor a percentage`);
  if (!isBudgetActive(budget, now)) return UNLIMITED;
  if (nodes.endsWith('%')) return Math.ceil((Number(nodes.slice(0, -1)) * numNodes) / 100);
  return Number(nodes);
}

export interface AllowedDisruptions {
  allowed: number;
  /** Set when a budget is misconfigured (the pool then allows 0). */
  problem?: string;
}

export function allowedDisruptions(nodePool: KubeObject, reason: DisruptionReason, numNodes: number, now: number): AllowedDisruptions {
  let allowed = UNLIMITED;
  const problems: string[] = [];
  for (const budget of budgetsOf(nodePool)) {
    let value: number;
    try {
      value = budgetValue(budget, numNodes, now);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    if (budget.reasons === undefined || budget.reasons === null || budget.reasons.includes(reason)) {
      allowed = Math.min(allowed, value);
    }
  }
  if (problems.length > 0) return { allowed: 0, problem: problems.join('; ') };
  return { allowed };
}

/** Disruptions still available: max(allowed − already disrupting, 0). */
export function availableDisruptions(allowed: number, disrupting: number): number {
  return Math.max(allowed - disrupting, 0);
}

// How far ahead to look for a schedule's next firing; past it, callers simply look again.
const BUDGET_HORIZON_MS = 24 * 60 * 60_000;

/**
 * The earliest moment after `now` at which one of the pool's scheduled budgets may switch between active and
 * inactive (a firing opens a window; a window closes `duration` after the firing that opened it). Allowed
 * disruptions cannot change with time alone before then. Infinity when no budget has a schedule; misconfigured
 * budgets are skipped, since they make the pool allow 0 at every moment.
 */
export function nextBudgetChange(nodePool: KubeObject, now: number): number {
  let next = Infinity;
  for (const budget of budgetsOf(nodePool)) {
    if (budget.schedule === undefined || budget.duration === undefined) continue;
    let duration: number;
    let schedule: ReturnType<typeof parseCron>;
    try {
      duration = parseGoDuration(budget.duration);
      schedule = parseCron(budget.schedule);
    } catch {
      continue;
    }
    const opened = nextFiring(schedule, now - duration, now);
    if (opened !== undefined) next = Math.min(next, opened + duration);
    next = Math.min(next, nextFiring(schedule, now, now + BUDGET_HORIZON_MS) ?? now + BUDGET_HORIZON_MS);
  }
  return next;
}
