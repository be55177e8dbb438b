import { describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { actionsOf, expectJobToBeThePlan, lab, planAndRun, usePlanHarness, workshop } from './plan-equals-job.js';

/**
 * The plan is the job, for the workshop and the Karpenter scenarios: blue/green, custom AMI, Fargate, every AMI selector kind. The harness, the on-call's answers and what "the job is the plan" means are in
 * test/support/plan-equals-job.ts.
 */
usePlanHarness();

describe('the plan is the job: workshop and Karpenter', () => {
  it('workshop 1.25 → 1.26: blue/green, a custom-AMI group, Karpenter pinned by id, Fargate and self-managed', async () => {
    const run = await planAndRun({ scenario: 'workshop', cluster: 'eksworkshop-eksctl', channel: 'C0OPS', from: '1.25', to: '1.26', config: workshop });
    const planned = actionsOf(run.plan).join('\n');
    expect(planned).toMatch(/^nodegroup\/blue-mng\S* blue-green 1\.26$/m);
    expect(planned).toMatch(/ custom-ami-gate 1\.26$/m);
    expect(planned).toMatch(/^ec2nodeclass\/\S+ pin-ami 1\.26$/m);
    expect(planned).toMatch(/ restart-workload 1\.26$/m);
    // Issue 13: the self-managed group is rolled through its Auto Scaling group, named in the plan.
    expect(planned).toMatch(/^asg\/\S+ roll-self-managed 1\.26$/m);
    expectJobToBeThePlan(run);
  });

  it('workshop 1.25 → 1.26 with an AMI source for the custom-AMI group: the job makes the launch template version and rolls it', async () => {
    const config = parseClustersConfig({
      clusters: [{ ...workshop.clusters[0], nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom-*': { amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } } }],
    });
    const run = await planAndRun({ scenario: 'workshop', cluster: 'eksworkshop-eksctl', channel: 'C0OPS', from: '1.25', to: '1.26', config });
    const planned = actionsOf(run.plan).join('\n');
    expect(planned).toMatch(/^nodegroup\/custom-\S+ roll-launch-template 1\.26$/m);
    expect(planned).not.toMatch(/custom-ami-gate/);
    expectJobToBeThePlan(run);
  });
  it('karpenter-selectors 1.30 → 1.31: classes selected by id, alias, SSM parameter and tags', async () => {
    const run = await planAndRun({ scenario: 'karpenter-selectors', cluster: 'eksworkshop-eksctl', channel: 'C0OPS', from: '1.30', to: '1.31', config: lab });
    expect(actionsOf(run.plan)).toEqual(expect.arrayContaining([
      'ec2nodeclass/default pin-ami 1.31',
      'ec2nodeclass/by-ssm pin-ami 1.31',
      'ec2nodeclass/by-alias follow-alias 1.31',
      'nodepool/by-alias hold-budget 1',
      'ec2nodeclass/by-tags karpenter-manual 1.31',
    ]));
    expectJobToBeThePlan(run);
  });

  it('karpenter-lab 1.30 → 1.31: the NodePool pinned by id, drifted at the upgrade budget', async () => {
    const run = await planAndRun({ scenario: 'karpenter-lab', cluster: 'eksworkshop-eksctl', channel: 'C0OPS', from: '1.30', to: '1.31', config: lab });
    expect(actionsOf(run.plan)).toContain('ec2nodeclass/default pin-ami 1.31');
    expectJobToBeThePlan(run);
  });

});
