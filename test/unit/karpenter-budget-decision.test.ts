import { describe, expect, it } from 'vitest';
import { budgetToApply, describeBudgets, originalToRecord, sameBudgets, type PoolBudgetRecord } from '../../src/planning/workloads/disruption-budget.js';

const running = { paused: false };
const paused = { paused: true };
const aborted = { paused: false, abort: { by: 'U0APP', at: 1 } };
const saved: PoolBudgetRecord = { original: [{ nodes: '10%' }] };

describe('the budget a NodePool gets', () => {
  it('is the upgrade budget while the job runs', () => {
    expect(budgetToApply({ controls: running, record: saved, upgradeBudget: '1' })).toEqual({ kind: 'upgrade', budgets: [{ nodes: '1' }] });
  });

  it('is nodes "0" while paused, and the upgrade budget again after Resume', () => {
    expect(budgetToApply({ controls: paused, record: saved, upgradeBudget: '1' })).toEqual({ kind: 'paused', budgets: [{ nodes: '0' }] });
    expect(budgetToApply({ controls: { paused: false, resumedBy: 'U0APP' } as never, record: saved, upgradeBudget: '1' })).toEqual({ kind: 'upgrade', budgets: [{ nodes: '1' }] });
  });

  it('is the original on abort (even while paused) and at the end', () => {
    expect(budgetToApply({ controls: aborted, record: saved, upgradeBudget: '1' })).toEqual({ kind: 'original', budgets: [{ nodes: '10%' }] });
    expect(budgetToApply({ controls: { ...aborted, paused: true }, record: saved, upgradeBudget: '1' })).toEqual({ kind: 'original', budgets: [{ nodes: '10%' }] });
    expect(budgetToApply({ controls: running, record: saved, upgradeBudget: '1', finished: true })).toEqual({ kind: 'original', budgets: [{ nodes: '10%' }] });
  });

  it('puts back "no budgets" (null removes the field) when the pool had none', () => {
    expect(budgetToApply({ controls: aborted, record: { original: null }, upgradeBudget: '1' })).toEqual({ kind: 'original', budgets: null });
  });

  it('after a crash in the middle of restoring, restores again rather than setting the upgrade budget', () => {
    expect(budgetToApply({ controls: running, record: { ...saved, restoring: true }, upgradeBudget: '1' })).toEqual({ kind: 'original', budgets: [{ nodes: '10%' }] });
  });

  it('never touches a pool whose original was not saved, or that is restored already', () => {
    expect(budgetToApply({ controls: running, record: {}, upgradeBudget: '1' })).toEqual({ kind: 'leave', why: 'never-changed' });
    expect(budgetToApply({ controls: paused, record: { ...saved, restored: true }, upgradeBudget: '1' })).toEqual({ kind: 'leave', why: 'restored' });
    expect(budgetToApply({ controls: aborted, record: { ...saved, restored: true }, upgradeBudget: '1' })).toEqual({ kind: 'leave', why: 'restored' });
  });
});

describe('recording the original', () => {
  it('keeps the first recorded original, so a re-run after a crash never records the upgrade budget as original', () => {
    expect(originalToRecord(undefined, [{ nodes: '10%' }])).toEqual([{ nodes: '10%' }]);
    expect(originalToRecord([{ nodes: '10%' }], [{ nodes: '1' }])).toEqual([{ nodes: '10%' }]);
    expect(originalToRecord(undefined, undefined)).toBeNull();
    expect(originalToRecord(null, [{ nodes: '1' }])).toBeNull();
  });
});

describe('comparing budgets', () => {
  it('treats the same budgets as equal whatever the key order, and an absent list as null', () => {
    expect(sameBudgets([{ reasons: ['Empty', 'Drifted'], nodes: '1' }], [{ nodes: '1', reasons: ['Drifted', 'Empty'] }])).toBe(true);
    expect(sameBudgets([{ nodes: '10%' }], [{ nodes: '1' }])).toBe(false);
    expect(sameBudgets(undefined, null)).toBe(true);
    expect(sameBudgets([], null)).toBe(false);
  });

  it('describes budgets for the thread', () => {
    expect(describeBudgets([{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }, { nodes: '10' }])).toBe('nodes 0 during 0 9 * * mon-fri for 8h + nodes 10');
    expect(describeBudgets(null)).toBe('the default (nodes 10%)');
  });
});
