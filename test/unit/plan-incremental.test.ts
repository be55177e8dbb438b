import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { readOk, type ClusterSnapshot } from '../../src/planning/cluster-snapshot.js';
import type { DataPlaneUnit } from '../../src/planning/planner/data-plane-units.js';
import { planDeferral } from '../../src/planning/incremental-strategy.js';
import { healthySnapshot, node, withKube } from './check-snapshot-fixture.js';

const unit = (minor: string, extra: Partial<DataPlaneUnit> = {}): DataPlaneUnit => ({ type: 'managed-nodegroup', name: 'ng', ref: 'nodegroup/ng', minor, nodes: 2, ...extra });

describe('incremental strategy (data plane waits while the skew policy allows)', () => {
  it('1.25 → 1.28: nodes at 1.25 stay within 2 minors of 1.26 and 1.27, so they move once, in the 1.28 hop', () => {
    const deferral = planDeferral([unit('1.25')], ['1.26', '1.27', '1.28']);
    expect(deferral.movesIn.get('nodegroup/ng')).toEqual(['1.28']);
    expect(Object.fromEntries(deferral.deferrableTo.get('nodegroup/ng')!)).toEqual({ '1.26': '1.28', '1.27': '1.28' });
  });

  it('before 1.28 only 2 minors of lag: 1.24 → 1.27 must move at 1.26 (1.24 would lag 3 behind 1.27), then again at 1.27', () => {
    const deferral = planDeferral([unit('1.24')], ['1.25', '1.26', '1.27']);
    expect(deferral.movesIn.get('nodegroup/ng')).toEqual(['1.26', '1.27']);
  });

  it('from 1.28 on, 3 minors of lag: 1.28 → 1.32 moves at 1.31 and 1.32', () => {
    expect(planDeferral([unit('1.28')], ['1.29', '1.30', '1.31', '1.32']).movesIn.get('nodegroup/ng')).toEqual(['1.31', '1.32']);
  });

  it('a Karpenter class on an alias cannot wait: it drifts after every control-plane upgrade', () => {
    const alias = unit('1.25', { type: 'karpenter', ref: 'ec2nodeclass/default', ami: { selection: 'alias', alias: 'al2023@latest', pinned: [], arch: 'x86_64' }, amiAction: () => ({ kind: 'follows-version', family: 'AL2023', alias: 'al2023@latest', lookups: [] }) });
    expect(planDeferral([alias], ['1.26', '1.27', '1.28']).movesIn.get('ec2nodeclass/default')).toEqual(['1.26', '1.27', '1.28']);
  });

  it('the plan marks the steps that can wait, says which hop they wait for and what it saves', () => {
    let s: ClusterSnapshot = healthySnapshot();
    s.cluster = readOk({ ...(s.cluster as any).value, version: '1.30' });
    s = withKube(s, 'nodes', [node('a', '1.30'), node('b', '1.30')]);
    const plan = buildPlan(s, '1.33');
    const ngSteps = plan.hops.map((hop) => hop.steps.find((st) => st.resource === 'nodegroup/ng-a'));
    expect(ngSteps.map((st) => st?.deferrableTo)).toEqual(['1.33', '1.33', undefined]);
    expect(plan.incremental.possible).toBe(true);
    expect(plan.incremental.dataPlaneHops).toEqual(['1.33']);
    expect(plan.incremental.savesMinutes).toBe(ngSteps[0]!.estimateMinutes + ngSteps[1]!.estimateMinutes);
    expect(plan.incremental.note).toContain('move only in the 1.33 hop');
  });

  it('one hop: nothing to defer', () => {
    const plan = buildPlan(healthySnapshot(), '1.31');
    expect(plan.incremental).toMatchObject({ possible: false, savesMinutes: 0, note: 'One hop: the data plane moves in it.' });
  });
});
