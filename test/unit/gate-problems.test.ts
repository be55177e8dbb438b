import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../jobs/engine/gate-step.js';

/**
 * A gate says what blocks as data (GateModel.problems, set where the gate is opened), so a report that lists blocks
 * (a rehearsal's "What would block") reads them instead of guessing from the words of every card.
 */
describe('problemsOf', () => {
  it('a drain held by a PDB: the card\'s lines but the one that says what to do', () => {
    expect(problemsOf({
      actions: ['remedy', 'force', 'abort'],
      details: ['PodEvictionFailure: Reached max retries', 'pod orders/orders-1 is protected by PDB orders/orders-pdb (0 disruptions allowed)', 'What to do: Scale orders to 2 replicas, or Force.'],
    })).toEqual(['PodEvictionFailure: Reached max retries', 'pod orders/orders-1 is protected by PDB orders/orders-pdb (0 disruptions allowed)']);
  });

  it('an approval nothing blocks has none, whatever its lines mention (PDBs respected, budgets)', () => {
    expect(problemsOf({ actions: ['continue', 'abort'], details: ['Pods move to the clone as EKS drains blue-mng; PDBs are respected.', 'Budgets now: default: "10%"'] })).toEqual([]);
  });

  it('the problems its producer names come first (the preflight\'s blocking findings, not its Waive… hint)', () => {
    expect(problemsOf({ actions: ['force', 'abort'], details: ['INS001 error: old API', 'To let a finding stand instead: Waive… below'], problems: ['INS001 error: old API'] })).toEqual(['INS001 error: old API']);
  });
});
