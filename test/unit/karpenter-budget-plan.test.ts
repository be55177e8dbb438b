import { describe, expect, it } from 'vitest';
import { jobSteps } from '../../src/planning/planner/job-steps.js';

describe('jobSteps: the Karpenter budget before the control plane', () => {
  it('puts karpenter-budget right after the approval and before the control plane, in every hop', () => {
    const { steps } = jobSteps({ cluster: 'prod', from: '1.29', to: '1.31' });
    const ids = steps.map((step) => step.id);
    for (const hop of [1, 2]) {
      expect(ids.indexOf(`h${hop}-karpenter-budget`)).toBe(ids.indexOf(`h${hop}-gate-control-plane`) + 1);
      expect(ids.indexOf(`h${hop}-control-plane`)).toBe(ids.indexOf(`h${hop}-karpenter-budget`) + 1);
    }
    expect(steps.find((step) => step.id === 'h2-karpenter-budget')?.title).toBe('hop 2: Karpenter disruption budget for 1.31');
  });

  it('leaves it out when the plan has no Karpenter step to hand the held budget back', () => {
    const { steps } = jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', kinds: ['gate', 'karpenter-budget', 'control-plane', 'verify'] });
    expect(steps.map((step) => step.kind)).toEqual(['gate', 'control-plane', 'verify']);
  });
});
