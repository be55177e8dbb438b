import { describe, expect, it } from 'vitest';
import { comparePlanWithWorld, describeDivergence } from '../../src/planning/plan-vs-world.js';
import type { PlannedAction } from '../../src/ports/upgrade-plan.js';

/** The plan-vs-world policy (docs/upgrade-job.md, "Plan and world"): what a step acts on, and how it says what changed. */
const planned: PlannedAction[] = [
  { resource: 'ec2nodeclass/default', action: 'pin-ami', to: '1.31', reason: 'pinned by id' },
  { resource: 'nodegroup/ng-a', action: 'update-in-place', to: '1.31', reason: 'ng-a 1.30 → 1.31' },
  { resource: 'nodegroup/ng-old', action: 'update-in-place', to: '1.31', reason: 'ng-old 1.30 → 1.31' },
  { resource: 'addon/coredns', action: 'update-addon', to: 'v1.11.3', reason: 'default for 1.31' },
];

describe('comparePlanWithWorld', () => {
  it('acts on what still needs the planned action; names what is already there, gone, changed or new', () => {
    const comparison = comparePlanWithWorld(planned, [
      { resource: 'ec2nodeclass/default', action: 'karpenter-manual', reason: 'EC2NodeClass default selects its AMIs by tags or owner' },
      { resource: 'nodegroup/ng-a', action: 'update-in-place', reason: 'ng-a 1.30 → 1.31' },
      { resource: 'addon/coredns', action: 'at-target', reason: 'coredns is already at v1.11.3' },
      { resource: 'nodegroup/blue-mng-2', action: 'blue-green', reason: 'clusters.yaml says blue-green' },
      { resource: 'nodegroup/quiet', action: 'at-target', reason: 'already at 1.31' },
    ]);
    expect(comparison.act).toEqual(['nodegroup/ng-a']);
    expect(describeDivergence(comparison, Date.UTC(2026, 0, 2, 9, 30))).toBe([
      'The cluster changed since the approved plan (read 09:30 UTC):',
      '• addon/coredns: already there (coredns is already at v1.11.3); skipped.',
      '• nodegroup/ng-old: gone since the plan; nothing to do.',
      '• ec2nodeclass/default: the plan said pointing it at the target AMI id, it now needs an AMI from the operator (EC2NodeClass default selects its AMIs by tags or owner); left alone — plan and start again to act on it.',
      '• nodegroup/blue-mng-2 appeared since the plan; it is left alone because the approved plan does not name it (it needs a blue/green replacement). Plan and start again to include it.',
    ].join('\n'));
  });
});
