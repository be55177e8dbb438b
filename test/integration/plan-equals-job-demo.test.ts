import { describe, expect, it } from 'vitest';
import { actionsOf, callsOf, demo, expectJobToBeThePlan, lab, planAndRun, usePlanHarness } from './plan-equals-job.js';

/**
 * The plan is the job, for the demo scenarios (one hop, two hops, a failed update) and a Karpenter pool whose own
 * budget blocks every disruption. (demo-throttled is left out: it exercises the SDK's retries, not the plan.) The harness, the on-call's answers and what "the job is the plan" means are in
 * test/support/plan-equals-job.ts.
 */
usePlanHarness();

describe('the plan is the job: demo', () => {
  it('demo 1.30 → 1.31: control plane, add-on defaults, the node group in place', async () => {
    const run = await planAndRun({ scenario: 'demo', cluster: 'demo', channel: 'C0DEMO', from: '1.30', to: '1.31', config: demo });
    expect(actionsOf(run.plan)).toContain('nodegroup/demo-ng update-in-place 1.31');
    expectJobToBeThePlan(run);
  });
  it('demo 1.30 → 1.32: two hops, each with its own add-on versions and node-group update', async () => {
    const run = await planAndRun({ scenario: 'demo', cluster: 'demo', channel: 'C0DEMO', from: '1.30', to: '1.32', config: demo });
    expect(run.plan.hops).toHaveLength(2);
    expectJobToBeThePlan(run);
  });


  it('demo-update-fails 1.30 → 1.31: the job stops at the failed control plane, having called nothing the plan did not name', async () => {
    const run = await planAndRun({ scenario: 'demo-update-fails', cluster: 'demo', channel: 'C0DEMO', from: '1.30', to: '1.31', config: demo });
    expect(run.data.state).toBe('failed');
    const allowed = run.plan.hops.flatMap((hop) => hop.steps.flatMap((line) => line.actions.flatMap(callsOf)));
    const made = run.calls.map((call) => `${call.operation}:${call.target}`);
    expect(made).toEqual(['UpdateClusterVersion:1.31']);
    expect(made.every((call) => allowed.includes(call))).toBe(true);
  });

  it('karpenter-blocked-budget 1.30 → 1.31: a pool whose own budget is nodes "0" still moves at the upgrade budget', async () => {
    const run = await planAndRun({ scenario: 'karpenter-blocked-budget', cluster: 'eksworkshop-eksctl', channel: 'C0OPS', from: '1.30', to: '1.31', config: lab });
    expectJobToBeThePlan(run);
  });
});
