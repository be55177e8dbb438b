import { describe, expect, it } from 'vitest';
import { createManualClock } from '@eks-upgrade-bot/sim';
import { simControl, useSim } from '@eks-upgrade-bot/sim/kit';
import { aws } from '../../support/aws-cli.js';
import { GROUP, group } from './sim-cli-autoscaling-group.js';

/**
 * The workshop's self-managed node group through the real `aws` CLI, continued from sim-cli-autoscaling.test.ts (a
 * file of its own so the suite's workers run the two halves' CLI calls side by side): an instance refresh and its
 * history, the AWS errors for what cannot be done, and the AMI parameters in SSM.
 */
const sim = useSim();

describe('aws autoscaling and aws ec2 against the simulated self-managed group', () => {
  it('runs an instance refresh, lists its history with the percentage, and answers refusals with AWS error codes', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const started = await aws(s, 'autoscaling', 'start-instance-refresh', '--auto-scaling-group-name', GROUP, '--preferences', '{"MinHealthyPercentage":50}');
    expect(started.json.InstanceRefreshId).toBeTruthy();
    const twice = await aws(s, 'autoscaling', 'start-instance-refresh', '--auto-scaling-group-name', GROUP);
    expect(twice.stderr).toContain('An error occurred (InstanceRefreshInProgress) when calling the StartInstanceRefresh operation');
    await simControl(s, 'POST', 'advance', { ms: 30 * 60_000 });
    const history = await aws(s, 'autoscaling', 'describe-instance-refreshes', '--auto-scaling-group-name', GROUP);
    expect(history.json.InstanceRefreshes[0]).toMatchObject({ InstanceRefreshId: started.json.InstanceRefreshId, Status: 'Successful', PercentageComplete: 100, Preferences: { MinHealthyPercentage: 50 } });
    const cancel = await aws(s, 'autoscaling', 'cancel-instance-refresh', '--auto-scaling-group-name', GROUP);
    expect(cancel.stderr).toContain('(ActiveInstanceRefreshNotFound)');

    const unknown = await aws(s, 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', 'nope', '--max-size', '3');
    expect(unknown.stderr).toContain("(ValidationError) when calling the UpdateAutoScalingGroup operation: AutoScalingGroup name not found - AutoScalingGroup 'nope' not found");
    const tooBig = await aws(s, 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', GROUP, '--desired-capacity', '9');
    expect(tooBig.stderr).toContain('Desired capacity:9 must be between the specified min size:2 and max size:3');
    const noInstance = await aws(s, 'autoscaling', 'terminate-instance-in-auto-scaling-group', '--instance-id', 'i-0123456789abcdef0', '--no-should-decrement-desired-capacity');
    expect(noInstance.stderr).toContain('Instance Id not found - No managed instance found for instance ID: i-0123456789abcdef0');
    const badLt = await aws(s, 'ec2', 'modify-launch-template', '--launch-template-id', (await group(s)).LaunchTemplate.LaunchTemplateId, '--default-version', '7');
    expect(badLt.stderr).toContain('(InvalidLaunchTemplateId.VersionNotFound)');
    // A refused mutation changes nothing and is logged as refused.
    expect((await group(s)).DesiredCapacity).toBe(2);
    expect(s.world.rejectedCalls.map((c) => c.error)).toEqual(expect.arrayContaining(['InstanceRefreshInProgress', 'ValidationError']));
  });

  it('serves the AMI variants and the scenario\'s own AMI parameters from SSM', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const names = [
      '/aws/service/eks/optimized-ami/1.26/amazon-linux-2-gpu/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/nvidia/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/neuron/recommended/image_id',
      '/aws/service/bottlerocket/aws-k8s-1.30-nvidia/x86_64/latest/image_id',
      '/eks-upgrade-bot/amis/workshop/1.26/image_id',
    ];
    const found = await aws(s, 'ssm', 'get-parameters', '--names', ...names, '/eks-upgrade-bot/amis/workshop/1.99/image_id');
    expect(found.json.Parameters.map((p: any) => p.Name).sort()).toEqual([...names].sort());
    expect(new Set(found.json.Parameters.map((p: any) => p.Value)).size).toBe(5);
    expect(found.json.InvalidParameters).toEqual(['/eks-upgrade-bot/amis/workshop/1.99/image_id']);
  });
});
