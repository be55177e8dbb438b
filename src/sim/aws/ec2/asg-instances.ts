import { AwsApiError } from '../aws-error.js';
import { launchNode, osImageFor, terminateNode } from '../node-factory.js';
import { describeAmi, kubeletVersionFor, type AmiArch, type AmiFamily } from '../eks/version-catalog.js';
import type { SimAsgInstance, SimAutoScalingGroup, SimCluster, SimLaunchTemplate, SimSubnet, SimWorld } from '../world-types.js';

/**
 * The instances of a self-managed node group (an Auto Scaling group): each boots the AMI of the launch template
 * version the group points at and registers as a node with that AMI's kubelet; a terminated instance's node goes
 * NotReady and is removed; the group launches replacements until it is back at its desired capacity. Termination
 * lifecycle hooks hold an instance in Terminating:Wait until CompleteLifecycleAction or the heartbeat timeout, as
 * EC2 Auto Scaling does (the instance still counts against maxSize meanwhile).
 */
export const ASG_TERMINATION_MS = 10_000;

export interface ImageFacts {
  minor: string;
  family: AmiFamily;
  arch: AmiArch;
}

/** What an AMI id boots: an EKS-optimized image of the catalog, or one of the scenario's own images. */
export function imageFacts(world: SimWorld, imageId: string): ImageFacts | undefined {
  const own = world.images.get(imageId);
  if (own) return { minor: own.minor, family: own.family, arch: own.arch };
  return describeAmi(imageId);
}

/** A launch template version as a group names it ($Default, $Latest or a number) → its number. */
export function resolveVersion(lt: SimLaunchTemplate, version: string): number {
  if (version === '$Latest') return Math.max(...lt.versions.keys());
  if (version === '$Default') return lt.defaultVersion;
  return Number(version);
}

export function launchTemplateOf(world: SimWorld, asg: SimAutoScalingGroup): SimLaunchTemplate {
  const lt = world.launchTemplates.get(asg.launchTemplate.id);
  if (!lt) throw new AwsApiError(400, 'ValidationError', `The launch template ${asg.launchTemplate.id} of ${asg.name} does not exist.`);
  return lt;
}

/** Instances still counted by the group (not on their way out). */
export function liveInstances(asg: SimAutoScalingGroup): SimAsgInstance[] {
  return [...asg.instances.values()].filter((i) => i.lifecycleState === 'Pending' || i.lifecycleState === 'InService');
}

function pickSubnet(world: SimWorld, asg: SimAutoScalingGroup): SimSubnet {
  const subnets = asg.subnets.map((id) => world.subnets.get(id)).filter((s): s is SimSubnet => Boolean(s));
  const inZone = (zone: string) => liveInstances(asg).filter((i) => i.zone === zone).length;
  return subnets.reduce((best, s) => (inZone(s.zone) < inZone(best.zone) ? s : best), subnets[0]);
}

function instanceIdOf(world: SimWorld): string {
  let hex = '';
  while (hex.length < 16) hex += Math.floor(world.random() * 16).toString(16);
  return `i-0${hex}`;
}

export function launchAsgInstance(world: SimWorld, cluster: SimCluster, asg: SimAutoScalingGroup, options: { ready?: boolean } = {}): SimAsgInstance {
  const lt = launchTemplateOf(world, asg);
  const version = resolveVersion(lt, asg.launchTemplate.version);
  const entry = lt.versions.get(version);
  if (!entry) throw new Error(`${asg.name}: launch template ${lt.name} has no version ${asg.launchTemplate.version}`);
  const facts = imageFacts(world, entry.imageId) ?? { minor: cluster.version, family: 'AL2' as const, arch: 'x86_64' as const };
  const subnet = pickSubnet(world, asg);
  const instanceId = instanceIdOf(world);
  const instanceType = entry.instanceType ?? 'm5.large';
  const nodeName = launchNode(world, {
    cluster,
    subnet,
    instanceType,
    instanceId,
    labels: asg.nodeLabels,
    taints: asg.nodeTaints,
    kubeletVersion: kubeletVersionFor(facts.minor),
    osImage: osImageFor(facts.family, facts.minor),
    readyAfterMs: options.ready ? undefined : world.settings.nodeReadyMs,
  });
  const instance: SimAsgInstance = {
    instanceId,
    nodeName,
    zone: subnet.zone,
    subnetId: subnet.id,
    instanceType,
    imageId: entry.imageId,
    launchTemplateVersion: String(version),
    lifecycleState: options.ready ? 'InService' : 'Pending',
    protectedFromScaleIn: asg.newInstancesProtectedFromScaleIn,
    launchedAt: world.clock.now(),
  };
  asg.instances.set(instanceId, instance);
  if (!options.ready) {
    world.after(world.settings.nodeReadyMs, () => {
      if (instance.lifecycleState === 'Pending') instance.lifecycleState = 'InService';
    });
  }
  world.log({ cluster: cluster.name, component: 'autoscaling', group: asg.name, message: 'launched instance', instanceId, node: nodeName, imageId: entry.imageId });
  return instance;
}

/**
 * Launches instances until the group is back at its desired capacity. Every instance not yet terminated (one held
 * in Terminating:Wait, or still shutting down) counts against maxSize, so a group at max waits for the old
 * instance to be gone before its replacement starts.
 */
export function reconcileCapacity(world: SimWorld, cluster: SimCluster, asg: SimAutoScalingGroup): void {
  const present = () => [...asg.instances.values()].filter((i) => i.lifecycleState !== 'Terminated').length;
  while (liveInstances(asg).length < asg.desiredCapacity && present() < asg.maxSize) launchAsgInstance(world, cluster, asg);
}

/**
 * Starts terminating an instance: through Terminating:Wait when the group has a termination lifecycle hook, then
 * the node goes away and the instance is forgotten; the group then launches a replacement where desired says so.
 */
export function beginTermination(world: SimWorld, cluster: SimCluster, asg: SimAutoScalingGroup, instance: SimAsgInstance, cause: string): void {
  const activity = { id: world.newId(), description: `Terminating EC2 instance: ${instance.instanceId}`, cause, startedAt: world.clock.now(), status: 'InProgress' as const };
  asg.activities.push(activity);
  const hook = asg.lifecycleHooks.find((h) => h.transition === 'autoscaling:EC2_INSTANCE_TERMINATING');
  if (hook) {
    instance.lifecycleState = 'Terminating:Wait';
    world.after(hook.heartbeatTimeout * 1000, () => {
      if (instance.lifecycleState === 'Terminating:Wait') completeTermination(world, cluster, asg, instance, activity);
    });
  } else {
    completeTermination(world, cluster, asg, instance, activity);
  }
  reconcileCapacity(world, cluster, asg);
}

/** CompleteLifecycleAction (or the heartbeat timeout) lets a held instance go. */
export function completeTermination(
  world: SimWorld,
  cluster: SimCluster,
  asg: SimAutoScalingGroup,
  instance: SimAsgInstance,
  activity = asg.activities.find((a) => a.description.endsWith(instance.instanceId) && a.status === 'InProgress'),
): void {
  instance.lifecycleState = 'Terminating:Proceed';
  terminateNode(world, cluster, instance.nodeName, ASG_TERMINATION_MS);
  world.after(ASG_TERMINATION_MS, () => {
    instance.lifecycleState = 'Terminated';
    asg.instances.delete(instance.instanceId);
    if (activity) Object.assign(activity, { status: 'Successful', endedAt: world.clock.now() });
    reconcileCapacity(world, cluster, asg);
  });
  world.log({ cluster: cluster.name, component: 'autoscaling', group: asg.name, message: 'terminating instance', instanceId: instance.instanceId, node: instance.nodeName });
}
