import { describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { jobSteps } from '../../src/planning/planner/job-steps.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { mixedCluster } from './check-snapshot-fixture.js';

/**
 * Issue 23: the plan's gates are the job's. A data-plane line's question rides on its first action (the job's step
 * asks it from there); clusters.yaml `gates:` turns a kind's gate off, and the plan says so; the gates asked only
 * when something blocks are listed apart.
 */
const configWith = (gates?: Record<string, boolean>) =>
  parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'], ...(gates ? { gates } : {}) }] }).clusters[0];

describe('plan gates', () => {
  it('every gated line hands its question to the job through its first action, in the plan\'s order', () => {
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig(configWith()));
    const lines = plan.hops[0].steps;
    const gated = lines.filter((line) => line.gate && line.kind !== 'gate');
    expect(gated.map((line) => line.kind)).toEqual(['managed-nodegroups', 'managed-nodegroups', 'karpenter', 'self-managed', 'fargate']);
    for (const line of gated) expect(line.actions[0].gate).toBe(line.gate);
    const { steps } = jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', plan });
    const asked = steps.flatMap((step) => (step.kind === 'gate' ? ['control plane'] : (step.actions ?? []).filter((a) => a.gate).map((a) => a.gate)));
    expect(asked).toEqual(['control plane', ...gated.map((line) => line.gate)]);
  });

  it('lists the gates asked only on a block apart, with when they are asked', () => {
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig(configWith()));
    const ngA = plan.hops[0].steps.find((line) => line.resource === 'nodegroup/ng-a')!;
    expect(ngA.conditionalGates).toEqual([{ when: 'a PodDisruptionBudget (or a pod that cannot move) blocks the drain', question: 'Node group ng-a could not drain its nodes. Force the update, or abort?' }]);
  });

  it('clusters.yaml gates: false turns a kind\'s gate off and the plan says so; the job then has no control-plane gate step', () => {
    const config = configWith({ controlPlane: false, nodegroups: false, fargate: false });
    expect(config.gates).toEqual({ controlPlane: false, nodegroups: false, karpenter: true, selfManaged: true, fargate: false });
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig(config));
    const lines = plan.hops[0].steps;
    expect(lines.some((line) => line.kind === 'gate')).toBe(false);
    expect(lines.find((line) => line.kind === 'control-plane')!.gateOff).toBe('No approval asked first: clusters.yaml sets gates.controlPlane to false.');
    for (const line of lines.filter((l) => l.kind === 'managed-nodegroups' || l.kind === 'fargate')) {
      expect(line.gate).toBeUndefined();
      expect(line.actions.some((action) => action.gate)).toBe(false);
      expect(line.gateOff).toMatch(/^No approval asked first: clusters\.yaml sets gates\.(nodegroups|fargate) to false\.$/);
    }
    expect(lines.filter((line) => line.gate).map((line) => line.kind)).toEqual(['karpenter', 'self-managed']);
    expect(jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', plan }).steps.map((s) => s.kind)).not.toContain('gate');
  });

  it('refuses a gates: key it does not know, naming it', () => {
    expect(() => configWith({ nodegroup: false })).toThrow(/gates/);
  });
});
