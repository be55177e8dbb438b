import { describe, expect, it } from 'vitest';
import { blockedLine, createAnswerBudget } from '../../jobs/rehearsal/rehearse-upgrade.js';
import type { GateModel } from '../../src/ports/timeline-event.js';

/**
 * Issue 23 item 2: a rehearsal ends in bounded time. The same gate answered automatically 3 times with no step ending
 * in between is the block the rehearsal stops at (state `blocked`, exit 2), with where, why and what to do.
 */
const gate = (revision: number): GateModel => ({
  jobId: 'u1', gateId: 'h1-ng-blue-mng', revision, title: 'Node group blue-mng could not drain its nodes. Force the update, or abort?',
  details: ['UpdateNodegroupVersion blue-mng → 1.26 ended Failed: PodEvictionFailure', 'pod orders/orders-1 is protected by PDB orders/orders-pdb (0 disruptions allowed)', 'What to do: Force (evicts ignoring the PDBs).'],
  actions: ['force', 'abort'],
});

describe('the rehearsal\'s answer budget', () => {
  it('answers a gate 3 times, then calls the 4th opening with no step ending the block', () => {
    const budget = createAnswerBudget();
    expect([1, 2, 3].map((r) => budget.allow(gate(r)))).toEqual([true, true, true]);
    expect(budget.blocked()).toBeUndefined();
    expect(budget.allow(gate(4))).toBe(false);
    expect(budget.blocked()).toMatchObject({ gate: { revision: 4 }, times: 3 });
  });

  it('counts again once a step has ended (progress)', () => {
    const budget = createAnswerBudget();
    for (const r of [1, 2, 3]) budget.allow(gate(r));
    budget.observe({ kind: 'step-finished', at: 0, step: 'h1-managed-nodegroups', title: 'managed node groups', durationMs: 1 });
    expect(budget.allow(gate(4))).toBe(true);
    expect(budget.blocked()).toBeUndefined();
  });

  it('the finding says where, why and what an operator would have to do', () => {
    const line = blockedLine(gate(4), 3, 'continue');
    expect(line).toContain('Blocked at gate h1-ng-blue-mng ("Node group blue-mng could not drain its nodes.');
    expect(line).toContain('after 3 automatic answers (force, --answers continue)');
    expect(line).toContain('PDB orders/orders-pdb (0 disruptions allowed)');
    expect(line).toContain('An operator would have to Force (evicts ignoring the PDBs) before the upgrade can pass');
  });
});
