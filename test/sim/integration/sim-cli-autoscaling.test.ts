import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simControl, useSim } from '@eks-upgrade-bot/sim/kit';
import { aws } from '../../support/aws-cli.js';
import { GROUP, group } from './sim-cli-autoscaling-group.js';

/**
 * The workshop's self-managed node group through the real `aws` CLI (botocore parses the query protocol's XML and
 * error documents): the Auto Scaling group and its instances, a new launch template version made the default, the
 * group pointed at it, an instance terminated without decrementing the capacity (its replacement joins as a 1.26
 * node). The instance refresh, the errors and SSM's AMI parameters are in sim-cli-autoscaling-refresh.test.ts.
 */
const sim = useSim();
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
});
