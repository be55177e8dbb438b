import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simControl, useSim } from '../support/start-sim.js';
import { aws } from '../support/aws-cli.js';

/**
 * The workshop's self-managed node group through the real `aws` CLI (botocore parses the query protocol's XML and
 * error documents): the Auto Scaling group and its instances, a new launch template version made the default, the
 * group pointed at it, an instance terminated without decrementing the capacity (its replacement joins as a 1.26
 * node), an instance refresh and its history, and the AWS errors for what cannot be done.
 */
const sim = useSim();
const GROUP = 'default-selfmng-2025032502302075740000002b';

const group = async (s: SimServer) => (await aws(s, 'autoscaling', 'describe-auto-scaling-groups', '--auto-scaling-group-names', GROUP)).json.AutoScalingGroups[0];
const kubelets = (s: SimServer) => s.world.kube('eksworkshop-eksctl')!.list('nodes').filter((n) => n.metadata.labels?.['alpha.eksctl.io/nodegroup-name'] === GROUP).map((n) => n.status.nodeInfo.kubeletVersion).sort();

describe('aws autoscaling and aws ec2 against the simulated self-managed group', () => {
  it('rolls one instance of the group onto a new launch template version, as the README shows', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const before = await group(s);
    expect(before).toMatchObject({ MinSize: 2, MaxSize: 3, DesiredCapacity: 2, LaunchTemplate: { Version: '1' } });
    expect(before.Instances).toHaveLength(2);
    expect(before.Tags).toContainEqual(expect.objectContaining({ Key: 'kubernetes.io/cluster/eksworkshop-eksctl', Value: 'owned' }));
    const ltId = before.LaunchTemplate.LaunchTemplateId;

    const instances = await aws(s, 'ec2', 'describe-instances', '--filters', `Name=tag:aws:autoscaling:groupName,Values=${GROUP}`, '--query', 'Reservations[].Instances[].[InstanceId,ImageId,State.Name,PrivateDnsName]');
    expect(instances.json).toHaveLength(2);
    expect(instances.json.every(([, image, state]: string[]) => image === 'ami-0078a0f78fafda978' && state === 'running')).toBe(true);

    const ami = (await aws(s, 'ssm', 'get-parameter', '--name', '/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id', '--query', 'Parameter.Value')).json;
    const created = await aws(s, 'ec2', 'create-launch-template-version', '--launch-template-id', ltId, '--source-version', '1', '--launch-template-data', JSON.stringify({ ImageId: ami }));
    expect(created.json.LaunchTemplateVersion).toMatchObject({ VersionNumber: 2, LaunchTemplateData: { ImageId: ami, InstanceType: 'm5.large' } });
    const modified = await aws(s, 'ec2', 'modify-launch-template', '--launch-template-id', ltId, '--default-version', '2');
    expect(modified.json.LaunchTemplate).toMatchObject({ DefaultVersionNumber: 2, LatestVersionNumber: 2 });
    expect((await aws(s, 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', GROUP, '--launch-template', `LaunchTemplateId=${ltId},Version=2`)).ok).toBe(true);

    const victim = before.Instances[0].InstanceId;
    const terminated = await aws(s, 'autoscaling', 'terminate-instance-in-auto-scaling-group', '--instance-id', victim, '--no-should-decrement-desired-capacity');
    expect(terminated.json.Activity.Description).toBe(`Terminating EC2 instance: ${victim}`);
    const again = await aws(s, 'autoscaling', 'terminate-instance-in-auto-scaling-group', '--instance-id', victim, '--no-should-decrement-desired-capacity');
    expect(again.stderr).toContain('(ScalingActivityInProgress)');
    await simControl(s, 'POST', 'advance', { ms: 5 * 60_000 });

    const after = await group(s);
    expect(after.DesiredCapacity).toBe(2);
    expect(after.Instances.map((i: any) => i.InstanceId)).not.toContain(victim);
    expect(after.Instances.map((i: any) => i.LaunchTemplate.Version).sort()).toEqual(['1', '2']);
    expect(kubelets(s)).toEqual(['v1.25.16-eks-2d5f260', 'v1.26.15-eks-59bf375']);

    // The commands the README and the bot's remedies quote.
    const [versions, activities, tagged, untagged] = await Promise.all([
      aws(s, 'ec2', 'describe-launch-template-versions', '--launch-template-id', ltId, '--query', 'LaunchTemplateVersions[].[VersionNumber,LaunchTemplateData.ImageId,DefaultVersion]'),
      aws(s, 'autoscaling', 'describe-scaling-activities', '--auto-scaling-group-name', GROUP, '--query', 'Activities[].[Description,StatusCode]'),
      aws(s, 'autoscaling', 'describe-auto-scaling-groups', '--filters', 'Name=tag:kubernetes.io/cluster/eksworkshop-eksctl,Values=owned', '--query', 'AutoScalingGroups[].AutoScalingGroupName'),
      aws(s, 'autoscaling', 'describe-auto-scaling-groups', '--filters', 'Name=tag-key,Values=kubernetes.io/cluster/other', '--query', 'AutoScalingGroups[].AutoScalingGroupName'),
    ]);
    expect(tagged.json).toEqual([GROUP]);
    expect(untagged.json).toEqual([]);
    expect(versions.json).toEqual(expect.arrayContaining([[1, 'ami-0078a0f78fafda978', false], [2, ami, true]]));
    expect(activities.json).toEqual([[`Terminating EC2 instance: ${victim}`, 'Successful']]);
    const survivor = after.Instances.find((i: any) => i.LaunchTemplate.Version === '1').InstanceId;
    expect((await aws(s, 'autoscaling', 'set-instance-protection', '--auto-scaling-group-name', GROUP, '--protected-from-scale-in', '--instance-ids', survivor)).ok).toBe(true);
    expect((await group(s)).Instances.find((i: any) => i.InstanceId === survivor).ProtectedFromScaleIn).toBe(true);
  });

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
