import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { amiIdFor } from '@eks-upgrade-bot/sim';
import { simEnv } from '@eks-upgrade-bot/sim/kit';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * The `instance-refresh` strategy end to end: the engine (real SDKs, BullMQ on Redis) upgrades the
 * self-managed-refresh scenario 1.30 → 1.31. Its only compute is a GPU Auto Scaling group on the AL2023 NVIDIA AMI:
 * the job must move it to the 1.31 NVIDIA AMI (not the standard one), drain each node the refresh takes out of
 * service while the trainer PDB keeps two pods available, and leave the refresh history for the aws CLI to show.
 */
const run = promisify(execFile);
const GROUP = 'gpu-batch-asg';
// About the instance refresh, not gates: the self-managed step's planned gate (issue 23) is turned off here and held by
// test/integration/plan-announces-gates.test.ts.
const clusters = [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false }, selfManaged: { 'gpu-batch*': { strategy: 'instance-refresh', minHealthyPercentage: 66 } } }];
let h: EngineHarness;
afterEach(async () => h?.close());

describe('upgrade engine: a self-managed GPU group by instance refresh', () => {
  it('moves the group to the 1.31 NVIDIA AMI through an instance refresh, keeping the PDB and the capacity', async () => {
    h = await startEngineHarness({ scenario: 'self-managed-refresh', speed: 600, config: parseClustersConfig({ clusters }), stepKinds: ['preflight', 'gate', 'control-plane', 'self-managed', 'verify'] });
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
    await waitForJobState(engine, job.jobId, ['waiting-approval'], 30_000);
    expect(await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' })).toEqual({ outcome: 'accepted' });
    const done = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 90_000);
    expect(done.state, JSON.stringify(h.thread.events('step-failed'))).toBe('succeeded');

    const nvidia131 = amiIdFor('1.31', 'AL2023', 'x86_64', 'nvidia');
    const group = h.sim.world.autoScalingGroups.get(GROUP)!;
    expect([...group.instances.values()].map((i) => i.imageId)).toEqual([nvidia131, nvidia131, nvidia131]);
    expect(group.desiredCapacity).toBe(3);
    const kubelets = h.sim.world.kube('batch')!.list('nodes').map((n) => String(n.status.nodeInfo.kubeletVersion).slice(0, 6));
    expect(kubelets).toEqual(['v1.31.', 'v1.31.', 'v1.31.']);
    expect(h.sim.world.pdbMinimums.get('batch/batch/trainer-pdb')!.minHealthy).toBeGreaterThanOrEqual(2);
    expect(h.calls('CompleteLifecycleAction')).toHaveLength(3);
    expect(h.calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(0);

    // What an operator sees afterwards with the aws CLI: the new template version and the refresh history.
    const aws = async (...args: string[]) => JSON.parse((await run('aws', ['--endpoint-url', h.sim.url, '--region', 'us-west-2', '--output', 'json', ...args], { env: simEnv(h.sim), timeout: 30_000 })).stdout);
    const [refreshes, versions] = await Promise.all([
      aws('autoscaling', 'describe-instance-refreshes', '--auto-scaling-group-name', GROUP),
      aws('ec2', 'describe-launch-template-versions', '--launch-template-id', group.launchTemplate.id),
    ]);
    expect(refreshes.InstanceRefreshes).toEqual([expect.objectContaining({ Status: 'Successful', PercentageComplete: 100, Preferences: expect.objectContaining({ MinHealthyPercentage: 66 }) })]);
    expect(versions.LaunchTemplateVersions.map((v: any) => [v.VersionNumber, v.LaunchTemplateData.ImageId, v.DefaultVersion]).sort()).toEqual([
      [1, amiIdFor('1.30', 'AL2023', 'x86_64', 'nvidia'), false],
      [2, nvidia131, true],
    ]);
  }, 150_000);
});
