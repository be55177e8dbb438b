/**
 * EC2 Auto Scaling, sized to what upgrading a self-managed node group needs: read the groups and their instances,
 * point a group at a launch template version, terminate one instance without shrinking the group, run and follow an
 * instance refresh, and hold terminating instances on a lifecycle hook while their nodes drain.
 */
export interface AsgInstance {
  instanceId: string;
  zone: string;
  /** Pending, InService, Terminating, Terminating:Wait, Terminating:Proceed, … */
  lifecycleState: string;
  /** The launch template version the instance was launched from, as the group reports it. */
  launchTemplateVersion?: string;
  protectedFromScaleIn: boolean;
}

export interface AutoScalingGroupInfo {
  name: string;
  launchTemplate?: { id: string; name: string; version: string };
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  instances: AsgInstance[];
  tags: Record<string, string>;
}

export interface InstanceRefreshInfo {
  id: string;
  /** Pending | InProgress | Successful | Failed | Cancelling | Cancelled | … */
  status: string;
  statusReason?: string;
  percentageComplete?: number;
  instancesToUpdate?: number;
  startTime?: number;
  endTime?: number;
}

export interface AutoScalingPort {
  /** Every group (names omitted) or the named ones; a name that does not exist is simply absent. */
  describeGroups(names?: string[]): Promise<AutoScalingGroupInfo[]>;
  setLaunchTemplate(group: string, launchTemplate: { id: string; version: string }): Promise<void>;
  /** TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity=false: the group launches a replacement. */
  terminateInstance(instanceId: string): Promise<void>;
  startInstanceRefresh(group: string, preferences: { minHealthyPercentage: number; skipMatching: boolean; instanceWarmupSeconds?: number }): Promise<string>;
  /** Every refresh (all pages), newest first by start time — AWS itself promises no order. */
  describeInstanceRefreshes(group: string, ids?: string[]): Promise<InstanceRefreshInfo[]>;
  cancelInstanceRefresh(group: string): Promise<void>;
  putTerminationHook(group: string, hook: string, heartbeatSeconds: number): Promise<void>;
  deleteLifecycleHook(group: string, hook: string): Promise<void>;
  completeLifecycleAction(group: string, hook: string, instanceId: string): Promise<void>;
}

export type AutoScalingPortFactory = (cluster: { region: string; roleArn?: string }) => AutoScalingPort;
