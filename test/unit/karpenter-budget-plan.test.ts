import { describe, expect, it } from 'vitest';
import { planUpgradeSteps } from '../../src/upgrade/plan-upgrade-steps.js';

describe('planUpgradeSteps: the Karpenter budget before the control plane', () => {
  it('puts karpenter-budget right after the approval and before the control plane, in every hop', () => {
    const { steps } = planUpgradeSteps('prod', '1.29', '1.31');
    const ids = steps.map((step) => step.id);
    for (const hop of [1, 2]) {
      expect(ids.indexOf(`h${hop}-karpenter-budget`)).toBe(ids.indexOf(`h${hop}-gate-control-plane`) + 1);
      expect(ids.indexOf(`h${hop}-control-plane`)).toBe(ids.indexOf(`h${hop}-karpenter-budget`) + 1);
    }
    expect(steps.find((step) => step.id === 'h2-karpenter-budget')?.title).toBe('hop 2: Karpenter disruption budget for 1.31');
  });

  it('leaves it out when the plan has no Karpenter step to hand the held budget back', () => {
    const { steps } = planUpgradeSteps('demo', '1.30', '1.31', ['gate', 'karpenter-budget', 'control-plane', 'verify']);
    expect(steps.map((step) => step.kind)).toEqual(['gate', 'control-plane', 'verify']);
  });
});
