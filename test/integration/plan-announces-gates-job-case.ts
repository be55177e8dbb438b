import { describe, expect, it } from 'vitest';
import { nextMinorOf } from '../../src/planning/upgrade-path.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { askedAlways, planAndRun, plannedGates, usePlanHarness, workshop } from './plan-equals-job.js';
import { SCENARIOS, clustersOf, configFor } from './plan-announces-gates-scenarios.js';

/**
 * Issue 23, item 4, the job's half (the plan's: plan-announces-gates.test.ts): for every shipped scenario, a job run
 * on the plan asks the plan's always-asked gates, same questions, same order; the gates asked only when something
 * blocks (a drain held by a PDB, a custom AMI without a source, a forced preflight) are the ones the plan lists apart.
 *
 * Two scenarios are made to block: demo-update-fails fails at the control plane (it never reaches the data-plane
 * gates) and karpenter-do-not-disrupt holds its drift until someone moves the pod (no answer ends it).
 */
export const RUNS = SCENARIOS.filter((s) => s !== 'demo-update-fails' && s !== 'karpenter-do-not-disrupt');
/**
 * The two longest runs (demo-throttled's throttles and retries, the workshop's blue/green group: about half of the
 * file's time between them), in plan-announces-gates-job-long.test.ts so the suite's two workers run the halves side
 * by side; every other scenario, a new one too, runs in plan-announces-gates-job.test.ts.
 */
export const LONG_RUNS = ['demo-throttled', 'workshop'];

export function describeJobAsksPlannedGates(runs: string[]): void {
  describe('the job asks the gates the plan announces (issue 23)', () => {
    usePlanHarness();
    it.each(runs)('%s: the gates asked, less those asked only on a block, are the plan\'s always-asked gates', async (scenario) => {
      const probe = await startSim(scenario, { speed: 1 });
      const [{ name, version }] = clustersOf(probe);
      await probe.close();
      // The workshop's blue-mng holds orders under a PDB that no in-place drain can pass (issue 23 item 2): its run with
      // no block is the blue/green one the workshop teaches.
      const config = scenario === 'workshop' ? workshop : configFor([name]);
      const run = await planAndRun({ scenario, cluster: name, channel: 'C0OPS', from: version, to: nextMinorOf(version)!, config });
      expect(run.data.state, JSON.stringify(run.failure)).toBe('succeeded');
      const always = plannedGates(run.plan);
      expect(always.length).toBeGreaterThan(0);
      expect(askedAlways(run.asked)).toEqual(always);
      // Every other gate asked is one the plan lists as asked only when something blocks.
      const conditional = run.plan.hops.flatMap((hop) => hop.steps.flatMap((step) => step.conditionalGates ?? []));
      const others = run.asked.filter((gate) => !always.includes(gate.title));
      if (others.length) expect(conditional.length, others.map((g) => g.title).join('; ')).toBeGreaterThan(0);
    });
  });
}
