import { archOfNode, familyOfNode, variantOfNode } from '../../../src/planning/deciders/ami-parameters.js';
import type { GroupImage } from '../../../src/planning/deciders/ami-source.js';
import { computeOfNode, instanceIdOfNode } from '../../../src/planning/compute-groups.js';
import { instanceViewsOf, type GroupInstanceView, type SelfManagedGroupState, type SelfManagedView } from '../../../src/planning/deciders/decide-self-managed-action.js';
import type { AutoScalingGroupInfo } from '../../../src/ports/aws/autoscaling-port.js';
import type { KubeObject } from '../../../src/ports/kube-port.js';
import type { StepContext } from '../../engine/step-context.js';

/**
 * Reads what the self-managed step decides from: the cluster's Auto Scaling groups (tagged
 * kubernetes.io/cluster/<name>, or holding an instance that is one of the cluster's self-managed nodes), each
 * instance's node (by the instance id in its providerID), the group's launch template versions and latest refresh.
 */
export async function findClusterGroups(ctx: StepContext, nodes: KubeObject[]): Promise<AutoScalingGroupInfo[]> {
  const selfManagedInstances = new Set(nodes.filter((n) => computeOfNode(n).type === 'self-managed').map(instanceIdOfNode).filter(Boolean));
  const groups = await ctx.autoScaling.describeGroups();
  const clusterTag = `kubernetes.io/cluster/${ctx.data.cluster}`;
  return groups
    .filter((g) => ['owned', 'shared'].includes(g.tags[clusterTag] ?? '') || g.instances.some((i) => selfManagedInstances.has(i.instanceId)))
    // Managed node groups' own Auto Scaling groups carry the eks:nodegroup-name tag; EKS rolls those.
    .filter((g) => !g.tags['eks:nodegroup-name'])
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function instanceViews(group: AutoScalingGroupInfo, nodes: KubeObject[]): GroupInstanceView[] {
  return instanceViewsOf(group.instances, nodes);
}

/** The image the group's nodes run (its first node that has registered), for choosing the target AMI. */
export function groupImage(group: AutoScalingGroupInfo, nodes: KubeObject[]): GroupImage | undefined {
  const ids = new Set(group.instances.map((i) => i.instanceId));
  const node = nodes.find((n) => ids.has(instanceIdOfNode(n) ?? ''));
  if (!node) return undefined;
  return { family: familyOfNode(node), arch: archOfNode(node), variant: variantOfNode(node), osImage: String(node.status?.nodeInfo?.osImage ?? '') };
}

export async function readGroupView(
  ctx: StepContext,
  input: { group: string; nodes: KubeObject[]; strategy: SelfManagedView['strategy']; targetImageId: string; state: SelfManagedGroupState },
): Promise<{ view: SelfManagedView; info: AutoScalingGroupInfo }> {
  const [info] = await ctx.autoScaling.describeGroups([input.group]);
  if (!info) throw new Error(`Auto Scaling group ${input.group} no longer exists`);
  if (!info.launchTemplate) throw new Error(`Auto Scaling group ${input.group} has no launch template (launch configurations and mixed-instances-only groups are not supported)`);
  const versions = await ctx.ec2.describeLaunchTemplateVersions(info.launchTemplate.id);
  const latest = input.strategy === 'instance-refresh' ? (await ctx.autoScaling.describeInstanceRefreshes(input.group))[0] : undefined;
  const groupVersion = info.launchTemplate.version === '$Default' ? String(versions.find((v) => v.isDefault)?.version ?? '') : info.launchTemplate.version === '$Latest' ? String(Math.max(...versions.map((v) => v.version))) : info.launchTemplate.version;
  return {
    info,
    view: {
      target: ctx.step.to,
      strategy: input.strategy,
      targetImageId: input.targetImageId,
      launchTemplateId: info.launchTemplate.id,
      groupVersion,
      versions: versions.map((v) => ({ version: v.version, imageId: v.imageId, isDefault: v.isDefault })),
      instances: instanceViews(info, input.nodes),
      desiredCapacity: info.desiredCapacity,
      state: input.state,
      ...(latest ? { refresh: { id: latest.id, status: latest.status } } : {}),
    },
  };
}
