import type { ScenarioSelfManaged } from '../../scenario/scenario-schema.js';
import { launchAsgInstance } from './asg-instances.js';
import { hexOf } from '../hex-of.js';
import { amiIdFor } from '../eks/version-catalog.js';
import type { SimAutoScalingGroup, SimCluster, SimSubnet, SimWorld } from '../world-types.js';

/**
 * A scenario's self-managed node group as AWS has it: a launch template (default version booting the group's AMI,
 * plus any pending newer versions) and an Auto Scaling group tagged kubernetes.io/cluster/<cluster>=owned, whose
 * instances are already InService and joined as nodes labelled node.kubernetes.io/lifecycle=self-managed.
 */
export function buildSelfManagedGroup(world: SimWorld, cluster: SimCluster, spec: ScenarioSelfManaged, subnets: SimSubnet[]): SimAutoScalingGroup {
  const minor = spec.version ?? cluster.version;
  const ami = spec.ami ?? { family: 'AL2' as const, arch: 'x86_64' as const, variant: 'standard' as const };
  const imageId = spec.imageId ?? amiIdFor(minor, ami.family, ami.arch, ami.variant);
  const asgName = spec.asgName ?? spec.name;
  const ltName = spec.launchTemplate?.name ?? `${asgName}-lt`;
  const ltId = `lt-0${hexOf(`${cluster.name}/${ltName}`, 16)}`;
  const versions = new Map<number, { imageId: string; createdAt: number; instanceType?: string }>();
  for (let v = 1; v <= 1 + (spec.launchTemplate?.pendingVersions ?? 0); v++) versions.set(v, { imageId, createdAt: cluster.createdAt, instanceType: spec.instanceType });
  world.launchTemplates.set(ltId, { id: ltId, name: ltName, versions, defaultVersion: 1 });
  const zones = spec.zones ?? subnets.map((s) => s.zone);
  const asg: SimAutoScalingGroup = {
    name: asgName,
    arn: `arn:aws:autoscaling:${cluster.region}:${world.accountId}:autoScalingGroup:${hexOf(asgName, 8)}-${hexOf(`${asgName}/1`, 4)}-${hexOf(`${asgName}/2`, 4)}-${hexOf(`${asgName}/3`, 4)}-${hexOf(`${asgName}/4`, 12)}:autoScalingGroupName/${asgName}`,
    clusterName: cluster.name,
    launchTemplate: { id: ltId, name: ltName, version: '1' },
    minSize: spec.min ?? spec.count,
    maxSize: spec.max ?? spec.count + 1,
    desiredCapacity: spec.count,
    subnets: subnets.filter((s) => zones.includes(s.zone)).map((s) => s.id),
    instances: new Map(),
    newInstancesProtectedFromScaleIn: spec.protectedFromScaleIn,
    nodeLabels: { 'node.kubernetes.io/lifecycle': 'self-managed', 'alpha.eksctl.io/nodegroup-name': spec.name, ...spec.labels },
    nodeTaints: spec.taints,
    tags: { Name: asgName, [`kubernetes.io/cluster/${cluster.name}`]: 'owned' },
    refreshes: [],
    lifecycleHooks: [],
    activities: [],
    createdAt: cluster.createdAt,
  };
  world.autoScalingGroups.set(asgName, asg);
  for (let i = 0; i < spec.count; i++) launchAsgInstance(world, cluster, asg, { ready: true });
  return asg;
}
