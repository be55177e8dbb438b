import { describe, expect, it } from 'vitest';
import { demo, planAndRun, usePlanHarness } from './plan-equals-job.js';
import { until } from '../support/until.js';

/**
 * The cluster changes between `plan` and the moment a step acts: someone adds a node group and upgrades an add-on
 * by hand. The job acts only on what the approved plan named, and the thread says what changed and what it did
 * about it: the new group is named and left alone, the add-on is named and skipped (README, "Plan and world").
 */
usePlanHarness();

describe('the world changed since the plan', () => {
  it('names a node group that appeared (left alone) and an add-on already upgraded by hand (skipped)', async () => {
    let coredns = '';
    const run = await planAndRun({
      scenario: 'demo', cluster: 'demo', channel: 'C0DEMO', from: '1.30', to: '1.31', config: demo,
      async meanwhile(h, plan) {
        const eks = h.sources.eks({ region: 'us-west-2' });
        const blue = await eks.describeNodegroup('demo', 'demo-ng');
        await eks.createNodegroup({ clusterName: 'demo', nodegroupName: 'blue-mng-2', version: '1.30', scalingConfig: { minSize: 1, maxSize: 1, desiredSize: 1 }, subnets: blue.subnets, nodeRole: blue.nodeRole, amiType: blue.amiType, instanceTypes: blue.instanceTypes });
        coredns = plan.hops[0].steps.flatMap((line) => line.actions).find((a) => a.resource === 'addon/coredns')!.to!;
        await eks.updateAddon('demo', 'coredns', { addonVersion: coredns });
        const cluster = h.sim.world.cluster('demo')!;
        await until(() => cluster.addons.get('coredns')?.version === coredns && cluster.nodegroups.get('blue-mng-2')?.status === 'ACTIVE', 'the changes made between plan and start to settle');
      },
    });
    expect(run.failure, JSON.stringify(run.failure)).toBeUndefined();
    expect(run.data.state).toBe('succeeded');
    const note = (heading: RegExp) => run.notes.find((text) => heading.test(text)) ?? '';
    const changed = run.notes.filter((text) => text.startsWith('The cluster changed since the approved plan'));
    expect(note(/nodegroup\/blue-mng-2 appeared/)).toMatch(/• nodegroup\/blue-mng-2 appeared since the plan; it is left alone because the approved plan does not name it \(it needs an in-place update\)\. Plan and start again to include it\./);
    expect(note(/addon\/coredns: already there/)).toMatch(new RegExp(`• addon/coredns: already there \\(coredns is already at ${coredns.replace(/\./g, '\\.')}, the default for 1\\.31\\); skipped\\.`));
    expect(changed).toHaveLength(2);
    // Nothing was done to what the plan did not name, and coredns got no second update.
    expect(run.calls.filter((call) => call.target === 'blue-mng-2').map((call) => call.operation)).toEqual(['CreateNodegroup']);
    expect(run.calls.filter((call) => call.operation === 'UpdateAddon' && call.target === 'coredns')).toHaveLength(1);
    expect(run.data.acted['h1-managed-nodegroups']?.['nodegroup/blue-mng-2 update-in-place']?.outcome).toBe('left-alone');
    expect(run.data.acted['h1-addons']?.[`addon/coredns update-addon ${coredns}`]?.outcome).toBe('already');
  });
});
