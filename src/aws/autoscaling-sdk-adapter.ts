import {
  AutoScalingClient,
  CancelInstanceRefreshCommand,
  CompleteLifecycleActionCommand,
  DeleteLifecycleHookCommand,
  DescribeAutoScalingGroupsCommand,
  DescribeInstanceRefreshesCommand,
  PutLifecycleHookCommand,
  StartInstanceRefreshCommand,
  TerminateInstanceInAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand,
  type AutoScalingGroup,
} from '@aws-sdk/client-auto-scaling';
import type { AutoScalingGroupInfo, AutoScalingPort, AutoScalingPortFactory, InstanceRefreshInfo } from '../ports/aws/autoscaling-port.js';
import { clientCache, sdkClientConfig, type AwsAdapterOptions } from './aws-client-config.js';

/**
 * AutoScalingPort over @aws-sdk/client-auto-scaling. Reads are paginated to the end; errors (ValidationError,
 * InstanceRefreshInProgress, ScalingActivityInProgress, AccessDenied…) pass through unchanged for the caller and
 * describeAwsError to explain.
 */
export function createAutoScalingPortFactory(opts: AwsAdapterOptions = {}): AutoScalingPortFactory {
  return clientCache((target) => autoScalingPort(new AutoScalingClient(sdkClientConfig('autoscaling', target, opts))));
}

function groupInfo(group: AutoScalingGroup): AutoScalingGroupInfo {
  const lt = group.LaunchTemplate ?? group.MixedInstancesPolicy?.LaunchTemplate?.LaunchTemplateSpecification;
  return {
    name: group.AutoScalingGroupName ?? '',
    ...(lt?.LaunchTemplateId ? { launchTemplate: { id: lt.LaunchTemplateId, name: lt.LaunchTemplateName ?? '', version: lt.Version ?? '$Default' } } : {}),
    minSize: group.MinSize ?? 0,
    maxSize: group.MaxSize ?? 0,
    desiredCapacity: group.DesiredCapacity ?? 0,
    instances: (group.Instances ?? []).map((i) => ({
      instanceId: i.InstanceId ?? '',
      zone: i.AvailabilityZone ?? '',
      lifecycleState: i.LifecycleState ?? 'InService',
      ...(i.LaunchTemplate?.Version ? { launchTemplateVersion: i.LaunchTemplate.Version } : {}),
      protectedFromScaleIn: Boolean(i.ProtectedFromScaleIn),
    })),
    tags: Object.fromEntries((group.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? ''])),
  };
}

function autoScalingPort(client: AutoScalingClient): AutoScalingPort {
  return {
    async describeGroups(names) {
      const groups: AutoScalingGroupInfo[] = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names, NextToken: nextToken }));
        groups.push(...(page.AutoScalingGroups ?? []).map(groupInfo));
        nextToken = page.NextToken;
      } while (nextToken);
      return groups;
    },
    async setLaunchTemplate(group, launchTemplate) {
      await client.send(new UpdateAutoScalingGroupCommand({ AutoScalingGroupName: group, LaunchTemplate: { LaunchTemplateId: launchTemplate.id, Version: launchTemplate.version } }));
    },
    async terminateInstance(instanceId) {
      await client.send(new TerminateInstanceInAutoScalingGroupCommand({ InstanceId: instanceId, ShouldDecrementDesiredCapacity: false }));
    },
    async startInstanceRefresh(group, preferences) {
      const { InstanceRefreshId } = await client.send(
        new StartInstanceRefreshCommand({
          AutoScalingGroupName: group,
          Preferences: { MinHealthyPercentage: preferences.minHealthyPercentage, SkipMatching: preferences.skipMatching, InstanceWarmup: preferences.instanceWarmupSeconds },
        }),
      );
      return InstanceRefreshId ?? '';
    },
    async describeInstanceRefreshes(group, ids) {
      // Every page, newest first by StartTime: AWS documents no order and pages by 50.
      const InstanceRefreshes = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new DescribeInstanceRefreshesCommand({ AutoScalingGroupName: group, InstanceRefreshIds: ids, NextToken: nextToken }));
        InstanceRefreshes.push(...(page.InstanceRefreshes ?? []));
        nextToken = page.NextToken;
      } while (nextToken);
      InstanceRefreshes.sort((a, b) => (b.StartTime?.getTime() ?? Number.MAX_SAFE_INTEGER) - (a.StartTime?.getTime() ?? Number.MAX_SAFE_INTEGER));
      return InstanceRefreshes.map(
        (r): InstanceRefreshInfo => ({
          id: r.InstanceRefreshId ?? '',
          status: r.Status ?? 'Pending',
          ...(r.StatusReason ? { statusReason: r.StatusReason } : {}),
          ...(r.PercentageComplete !== undefined ? { percentageComplete: r.PercentageComplete } : {}),
          ...(r.InstancesToUpdate !== undefined ? { instancesToUpdate: r.InstancesToUpdate } : {}),
          ...(r.StartTime ? { startTime: r.StartTime.getTime() } : {}),
          ...(r.EndTime ? { endTime: r.EndTime.getTime() } : {}),
        }),
      );
    },
    async cancelInstanceRefresh(group) {
      await client.send(new CancelInstanceRefreshCommand({ AutoScalingGroupName: group }));
    },
    async putTerminationHook(group, hook, heartbeatSeconds) {
      await client.send(
        new PutLifecycleHookCommand({
          AutoScalingGroupName: group,
          LifecycleHookName: hook,
          LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
          HeartbeatTimeout: heartbeatSeconds,
          DefaultResult: 'CONTINUE',
        }),
      );
    },
    async deleteLifecycleHook(group, hook) {
      await client.send(new DeleteLifecycleHookCommand({ AutoScalingGroupName: group, LifecycleHookName: hook }));
    },
    async completeLifecycleAction(group, hook, instanceId) {
      await client.send(new CompleteLifecycleActionCommand({ AutoScalingGroupName: group, LifecycleHookName: hook, InstanceId: instanceId, LifecycleActionResult: 'CONTINUE' }));
    },
  };
}
