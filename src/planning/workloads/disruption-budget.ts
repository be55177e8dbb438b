import type { JobControls } from '../../ports/job-controls.js';

/**
 * Which `spec.disruption.budgets` a NodePool should have right now, given the job's controls and what the step
 * recorded (reference/karpenter.md, budgets; product.md, Controls). Pure, so every combination of pause, resume,
 * abort, finish and crash is a unit test.
 *
 * During the upgrade the whole list is replaced by `[{ nodes: <upgradeBudget> }]` rather than adding a
 * `reasons: [Drifted]` budget next to the original ones: Karpenter takes the minimum over every active budget, so a
 * kept `nodes: "0"` business-hours window or a smaller percentage would silently slow or block the upgrade, and the
 * configured rate would not be the rate people see. A budget without `reasons` also holds consolidation to the same
 * pace while nodes are being replaced. The original list is saved before the first patch and put back at the end,
 * on abort, and when a failed job gives up.
 */
export interface Budget {
  nodes: string;
  schedule?: string;
  duration?: string;
  reasons?: string[];
}

export interface PoolBudgetRecord {
  /** The NodePool's budgets before the job touched them; null when the field was absent. Saved before any patch. */
  original?: Budget[] | null;
  /** Set before the original is patched back, so a re-run after a crash goes straight to restoring. */
  restoring?: boolean;
  /** The original is back: nothing may patch this NodePool's budgets again. */
  restored?: boolean;
}

export type BudgetDecision =
  | { kind: 'leave'; why: 'never-changed' | 'restored' }
  | { kind: 'upgrade' | 'paused' | 'original'; budgets: Budget[] | null };

export const PAUSED_BUDGETS: Budget[] = [{ nodes: '0' }];

export function upgradeBudgets(upgradeBudget: string): Budget[] {
  return [{ nodes: upgradeBudget }];
}

export function budgetToApply(input: {
  controls: Pick<JobControls, 'paused' | 'abort'>;
  record: PoolBudgetRecord;
  upgradeBudget: string;
  /** The pool's drift is finished (or the job is giving up): time to put the original back. */
  finished?: boolean;
}): BudgetDecision {
  const { controls, record } = input;
  if (record.restored) return { kind: 'leave', why: 'restored' };
  // Without a saved original the step never patched this pool (it saves first), so there is nothing to undo.
  if (record.original === undefined) return { kind: 'leave', why: 'never-changed' };
  if (record.restoring || controls.abort || input.finished) return { kind: 'original', budgets: record.original };
  if (controls.paused) return { kind: 'paused', budgets: PAUSED_BUDGETS };
  return { kind: 'upgrade', budgets: upgradeBudgets(input.upgradeBudget) };
}

/** The original to keep: the one already recorded wins, so a re-run after a crash never saves our own budget. */
export function originalToRecord(recorded: Budget[] | null | undefined, current: unknown): Budget[] | null {
  if (recorded !== undefined) return recorded;
  return Array.isArray(current) ? (structuredClone(current) as Budget[]) : null;
}

/** Whether two budget lists mean the same (order matters to nobody, but Karpenter keeps it; so do we). */
export function sameBudgets(a: unknown, b: Budget[] | null): boolean {
  const left = Array.isArray(a) ? a : null;
  if (left === null || b === null) return left === b;
  return JSON.stringify(left.map(canonical)) === JSON.stringify(b.map(canonical));
}

function canonical(budget: Partial<Budget>): Budget {
  const out: Budget = { nodes: String(budget.nodes ?? '') };
  if (budget.schedule !== undefined) out.schedule = budget.schedule;
  if (budget.duration !== undefined) out.duration = budget.duration;
  if (budget.reasons !== undefined) out.reasons = [...budget.reasons].sort();
  return out;
}

/** `nodes 10%`, `nodes 0 during 0 9 * * mon-fri for 8h` — for the thread. */
export function describeBudgets(budgets: Budget[] | null | undefined): string {
  if (!budgets || budgets.length === 0) return 'the default (nodes 10%)';
  return budgets
    .map((budget) => {
      const schedule = budget.schedule ? ` during ${budget.schedule}${budget.duration ? ` for ${budget.duration}` : ''}` : '';
      const reasons = budget.reasons?.length ? ` (${budget.reasons.join(', ')})` : '';
      return `nodes ${budget.nodes}${schedule}${reasons}`;
    })
    .join(' + ');
}
