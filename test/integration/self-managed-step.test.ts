import { afterEach, describe, expect, it } from 'vitest';
import { selfManagedCleanup, selfManagedStep } from '../../jobs/steps/self-managed/self-managed-step.js';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';
import type { StepContext } from '../../jobs/engine/step-context.js';
import { createStepRig, upgradeControlPlane, type StepRig } from '../support/karpenter-step-context.js';

/**
 * The self-managed step on the workshop's carts group (an Auto Scaling group of two 1.25 nodes, carts with two
 * replicas behind a minAvailable-1 PDB), through the real EC2, Auto Scaling and Kubernetes clients against the
 * simulator on its clock: rolling replacement, an instance refresh, Pause and Abort between nodes, and a worker
 * killed right after a termination.
 */
const CLUSTER = 'eksworkshop-eksctl';
const GROUP = 'default-selfmng-2025032502302075740000002b';
const AMI_126 = 'ami-086414611b43bb691';
let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const group = () => sim!.world.autoScalingGroups.get(GROUP)!;
const template = () => sim!.world.launchTemplates.get(group().launchTemplate.id)!;
const groupKubelets = () =>
  sim!.world.kube(CLUSTER)!.list('nodes').filter((n) => n.metadata.labels?.['alpha.eksctl.io/nodegroup-name'] === GROUP).map((n) => String(n.status.nodeInfo.kubeletVersion).slice(0, 6)).sort();
const calls = (operation: string) => sim!.world.calls.filter((c) => c.operation === operation);
const cartsMinimum = () => sim!.world.pdbMinimums.get(`${CLUSTER}/carts/carts-pdb`);

async function workshopAt126(clusterYaml?: Record<string, unknown>): Promise<StepRig> {
  sim = await startSimulator({ scenario: 'workshop', port: 0, host: '127.0.0.1', speed: 600 });
  const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'self-managed', from: '1.25', to: '1.26', clusterYaml });
  await upgradeControlPlane(rig, CLUSTER, '1.26');
  return rig;
}

describe('self-managed step: the workshop carts group', () => {
  it('replaces the nodes one at a time onto a new launch template version, keeping carts available and the capacity unchanged', async () => {
    const rig = await workshopAt126();
    expect(groupKubelets()).toEqual(['v1.25.', 'v1.25.']);
    const { result } = await rig.runUntilSettled(selfManagedStep, { timeoutMs: 60_000 });

    expect(result).toMatchObject({ outcome: 'done', summary: expect.stringContaining(`${GROUP}: 2/2 nodes at 1.26 (launch template version 2, rolling), desired capacity 2`) });
    expect(groupKubelets()).toEqual(['v1.26.', 'v1.26.']);
    expect(template().versions.get(2)?.imageId).toBe(AMI_126);
    expect(template().defaultVersion).toBe(2);
    expect(group()).toMatchObject({ desiredCapacity: 2, launchTemplate: { version: '2' } });
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(2);
    expect(cartsMinimum()).toMatchObject({ desired: 1, minHealthy: expect.any(Number) });
    expect(cartsMinimum()!.minHealthy).toBeGreaterThanOrEqual(1);
    expect(rig.progress).toContain(`${GROUP}: 1/2 nodes at 1.26`);
    expect(rig.texts().some((t) => t.startsWith(`${GROUP}: launch template `) && t.includes(`version 2 created from version 1 with ${AMI_126}`))).toBe(true);

    // Run again (a worker that finished but died before the engine heard): nothing is terminated a second time.
    const again = await rig.runUntilSettled(selfManagedStep);
    expect(again.result.outcome).toBe('done');
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(2);
  }, 90_000);

  it('resumes after a worker died right after TerminateInstanceInAutoScalingGroup without terminating an extra instance', async () => {
    const rig = await workshopAt126();
    let killed = false;
    const dying = (ctx: StepContext): StepContext => ({
      ...ctx,
      autoScaling: {
        ...ctx.autoScaling,
        async terminateInstance(id) {
          await ctx.autoScaling.terminateInstance(id);
          killed = true;
          throw new Error('SIGKILL: the worker died');
        },
      },
    });
    await expect(selfManagedStep(dying(rig.context()))).rejects.toThrow('SIGKILL');
    expect(killed).toBe(true);
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(1);

    const { result } = await rig.runUntilSettled(selfManagedStep, { timeoutMs: 60_000 });
    expect(result.outcome).toBe('done');
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(2);
    expect(groupKubelets()).toEqual(['v1.26.', 'v1.26.']);
    expect(group().desiredCapacity).toBe(2);
  }, 90_000);

  it('pauses between nodes, and an abort before any node moved puts the previous launch template version back', async () => {
    const rig = await workshopAt126();
    rig.controls.paused = true;
    const paused = await selfManagedStep(rig.context());
    expect(paused.outcome).toBe('wait');
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(0);
    expect(group().launchTemplate.version).toBe('2');

    rig.controls.abort = { by: 'U0APP', at: sim!.clock.now() };
    const aborted = await selfManagedStep(rig.context());
    expect(aborted).toMatchObject({ outcome: 'abort', by: 'U0APP' });
    expect(group().launchTemplate.version).toBe('1');
    expect(template().defaultVersion).toBe(1);
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(0);
    expect(groupKubelets()).toEqual(['v1.25.', 'v1.25.']);
    expect(rig.texts()).toContain(`${GROUP}: aborted before any node moved; the group is back on launch template version 1 (default 1).`);
  }, 90_000);

  it('stops after the current node on Pause, and the cleanup after an abort leaves a half-moved group on the new version', async () => {
    const rig = await workshopAt126();
    const pauseAfterFirst = (ctx: StepContext): StepContext => ({
      ...ctx,
      autoScaling: {
        ...ctx.autoScaling,
        async terminateInstance(id) {
          await ctx.autoScaling.terminateInstance(id);
          rig.controls.paused = true;
        },
      },
    });
    let result = await selfManagedStep(pauseAfterFirst(rig.context()));
    expect(result.outcome).toBe('wait');
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(1);
    expect(groupKubelets()).toEqual(['v1.25.', 'v1.26.']);

    await selfManagedCleanup(rig.context());
    expect(group().launchTemplate.version).toBe('2');

    rig.controls.paused = false;
    ({ result } = await rig.runUntilSettled(selfManagedStep, { timeoutMs: 60_000 }));
    expect(result.outcome).toBe('done');
    expect(groupKubelets()).toEqual(['v1.26.', 'v1.26.']);
  }, 90_000);

  it('stops with what to do when the AMI clusters.yaml names does not exist, changing nothing', async () => {
    const rig = await workshopAt126({ selfManaged: { 'default-selfmng*': { amiParameter: '/nope/{minor}/image_id' } } });
    await expect(selfManagedStep(rig.context())).rejects.toMatchObject({
      name: 'StepFailure',
      message: `self-managed group ${GROUP}: no AMI for 1.26: SSM parameter /nope/1.26/image_id does not exist`,
      remedy: `publish the 1.26 AMI id under that parameter, or set selfManaged.${GROUP}.ami."1.26" in clusters.yaml`,
    });
    expect(sim!.world.calls.filter((c) => c.service !== 'eks')).toEqual([]);
  });

  it('in a dry run says what it would do and changes nothing', async () => {
    sim = await startSimulator({ scenario: 'workshop', port: 0, host: '127.0.0.1', speed: 600 });
    const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'self-managed', from: '1.25', to: '1.26', dryRun: true });
    const result = await selfManagedStep(rig.context());
    expect(result).toEqual({ outcome: 'dry-run', summary: `${GROUP}: would add a launch template version with ${AMI_126} (the 1.26 AL2 x86_64 AMI (SSM /aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id)) and replace its 2 instance(s) by the bot, one node at a time (cordon, drain, terminate, wait for the replacement)` });
    expect(sim.world.calls).toEqual([]);
  });

  it('with strategy instance-refresh, drains each instance the refresh takes out of service on a lifecycle hook', async () => {
    const rig = await workshopAt126({ selfManaged: { 'default-selfmng*': { strategy: 'instance-refresh', minHealthyPercentage: 50 } } });
    const { result } = await rig.runUntilSettled(selfManagedStep, { timeoutMs: 60_000 });

    expect(result).toMatchObject({ outcome: 'done', summary: expect.stringContaining('2/2 nodes at 1.26 (launch template version 2, instance-refresh)') });
    expect(groupKubelets()).toEqual(['v1.26.', 'v1.26.']);
    expect(group().refreshes).toEqual([expect.objectContaining({ status: 'Successful', minHealthyPercentage: 50, replaced: 2, total: 2 })]);
    expect(calls('CompleteLifecycleAction')).toHaveLength(2);
    expect(calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(0);
    expect(group().lifecycleHooks).toEqual([]);
    expect(group().desiredCapacity).toBe(2);
    expect(cartsMinimum()!.minHealthy).toBeGreaterThanOrEqual(1);
    expect(rig.progress.some((p) => /^default-selfmng-\S+: [0-2]\/2 nodes at 1\.26 \(instance refresh \d+%\)$/.test(p))).toBe(true);
  }, 90_000);
});
