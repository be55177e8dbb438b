import { describe, expect, it } from 'vitest';
import { checkBudgetWindows } from '../../src/planning/checks/karpenter/karpenter-budget-window-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../../src/planning/plan-policy.js';
import { healthySnapshot } from './check-snapshot-fixture.js';

/** KAR010: a scheduled "0" budget that covers part of clusters.yaml's maintenance window (fixture time: Sunday 2025-06-15 00:00 UTC). */
function withBudgets(budgets: unknown[]) {
  const s = healthySnapshot();
  s.kube = { ...s.kube, karpenter: readOk({ nodePools: [{ metadata: { name: 'default' }, spec: { disruption: { budgets } } }], nodeClaims: [], nodeClasses: [] }) };
  return s;
}
const tueWed: PlanPolicy = { ...DEFAULT_POLICY, maintenanceWindow: { days: ['tue', 'wed'], start: '09:00', end: '17:00' } };

describe('Karpenter budget schedules against the maintenance window (KAR010)', () => {
  it('a weekday business-hours freeze closes drift in a Tuesday window', () => {
    const [finding] = checkBudgetWindows(withBudgets([{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }, { nodes: '10%' }]), '1.31', tueWed);
    expect(finding).toMatchObject({ code: 'KAR010', severity: 'warning', resources: ['nodepool/default'] });
    expect(finding.title).toBe(`NodePool default's budget "0 9 * * mon-fri" for 8h allows 0 drift disruptions during the maintenance window (Tue, Wed 09:00–17:00 UTC; first on 2025-06-17 09:00 UTC): nodes will not be replaced then`);
  });

  it('a freeze that only overlaps the window by running into it counts; one outside it, or non-zero, or for other reasons does not', () => {
    expect(checkBudgetWindows(withBudgets([{ nodes: '0', schedule: '0 6 * * *', duration: '4h' }]), '1.31', tueWed)).toHaveLength(1);
    expect(checkBudgetWindows(withBudgets([{ nodes: '0', schedule: '0 18 * * *', duration: '10h' }]), '1.31', tueWed)).toEqual([]);
    expect(checkBudgetWindows(withBudgets([{ nodes: '1', schedule: '0 9 * * *', duration: '8h' }]), '1.31', tueWed)).toEqual([]);
    expect(checkBudgetWindows(withBudgets([{ nodes: '0', schedule: '0 9 * * *', duration: '8h', reasons: ['Underutilized'] }]), '1.31', tueWed)).toEqual([]);
    expect(checkBudgetWindows(withBudgets([{ nodes: '0', schedule: '0 9 * * *', duration: '8h' }]), '1.31', DEFAULT_POLICY)).toEqual([]);
  });
});
