import { AwsApiError } from '../aws-error.js';
import { beginTermination, launchTemplateOf, liveInstances, resolveVersion } from './asg-instances.js';
import type { SimAsgInstance, SimAutoScalingGroup, SimCluster, SimInstanceRefresh, SimWorld } from '../world-types.js';

/**
 * StartInstanceRefresh and the refresh EC2 Auto Scaling runs: replace every instance not on the group's launch
 * template version (all of them unless SkipMatching), in batches that keep MinHealthyPercentage of the desired
 * capacity InService (at least one instance at a time), waiting InstanceWarmup after each replacement is InService.
 * Instances protected from scale in are waited for (the default ScaleInProtectedInstances=Wait) for an hour, then the
 * refresh fails. Terminations go through the group's lifecycle hooks, so a drainer can hold each instance in
 * Terminating:Wait while it drains the node.
 */
export interface RefreshPreferences {
  minHealthyPercentage?: number;
  instanceWarmup?: number;
  skipMatching?: boolean;
}

const PROTECTED_WAIT_MS = 3600_000;
const TICK_MS = 5_000;
const DEFAULT_WARMUP_S = 60;

export const isActiveRefresh = (r: SimInstanceRefresh) => r.status === 'Pending' || r.status === 'InProgress' || r.status === 'Cancelling';

export function startInstanceRefresh(world: SimWorld, cluster: SimCluster, asg: SimAutoScalingGroup, prefs: RefreshPreferences): SimInstanceRefresh {
  if (asg.refreshes.some(isActiveRefresh)) {
    throw new AwsApiError(400, 'InstanceRefreshInProgress', 'An Instance Refresh is already in progress and blocks the execution of this Instance Refresh.');
  }
  const minHealthy = prefs.minHealthyPercentage ?? 90;
  if (minHealthy < 0 || minHealthy > 100) throw new AwsApiError(400, 'ValidationError', 'MinHealthyPercentage must be between 0 and 100.');
  const refresh: SimInstanceRefresh = {
    id: world.newId(),
    status: 'Pending',
    startedAt: world.clock.now(),
    minHealthyPercentage: minHealthy,
    instanceWarmup: prefs.instanceWarmup ?? DEFAULT_WARMUP_S,
    total: 0,
    replaced: 0,
  };
  asg.refreshes.push(refresh);
  void run(world, cluster, asg, refresh, prefs.skipMatching ?? false);
  return refresh;
}

export function cancelInstanceRefresh(asg: SimAutoScalingGroup): SimInstanceRefresh {
  const active = asg.refreshes.find(isActiveRefresh);
  if (!active) throw new AwsApiError(400, 'ActiveInstanceRefreshNotFound', `No in progress or pending Instance Refresh found for Auto Scaling group ${asg.name}`);
  active.status = 'Cancelling';
  return active;
}

export function percentageOf(refresh: SimInstanceRefresh): number {
  if (refresh.status === 'Successful') return 100;
  return refresh.total === 0 ? 0 : Math.floor((refresh.replaced / refresh.total) * 100);
}

function end(world: SimWorld, refresh: SimInstanceRefresh, status: SimInstanceRefresh['status'], reason?: string): void {
  Object.assign(refresh, { status, endedAt: world.clock.now(), ...(reason ? { statusReason: reason } : {}) });
}

async function run(world: SimWorld, cluster: SimCluster, asg: SimAutoScalingGroup, refresh: SimInstanceRefresh, skipMatching: boolean): Promise<void> {
  await world.sleep(TICK_MS);
  if (refresh.status === 'Cancelling') return end(world, refresh, 'Cancelled');
  refresh.status = 'InProgress';
  const lt = launchTemplateOf(world, asg);
  const target = () => String(resolveVersion(lt, asg.launchTemplate.version));
  const startedBefore = new Set([...asg.instances.values()].filter((i) => i.launchedAt <= refresh.startedAt).map((i) => i.instanceId));
  const needsReplacing = (i: SimAsgInstance) => liveInstances(asg).includes(i) && startedBefore.has(i.instanceId) && (!skipMatching || i.launchTemplateVersion !== target());
  refresh.total = liveInstances(asg).filter(needsReplacing).length;
  let protectedSince: number | undefined;
  for (;;) {
    // CancelInstanceRefresh changes the status while this loop sleeps.
    if ((refresh.status as SimInstanceRefresh['status']) === 'Cancelling') return end(world, refresh, 'Cancelled');
    const remaining = liveInstances(asg).filter(needsReplacing);
    if (remaining.length === 0) return end(world, refresh, 'Successful');
    const healthyNeeded = Math.ceil((asg.desiredCapacity * refresh.minHealthyPercentage) / 100);
    const inService = liveInstances(asg).filter((i) => i.lifecycleState === 'InService' && !needsReplacing(i)).length + remaining.filter((i) => i.lifecycleState === 'InService').length;
    const batchSize = Math.max(1, inService - healthyNeeded);
    const candidates = remaining.filter((i) => !i.protectedFromScaleIn);
    if (candidates.length === 0) {
      protectedSince ??= world.clock.now();
      refresh.statusReason = 'Waiting for instances with scale-in protection to be terminated or to have scale-in protection removed';
      if (world.clock.now() - protectedSince >= PROTECTED_WAIT_MS) {
        return end(world, refresh, 'Failed', `${remaining.length} instance(s) protected from scale in were not refreshed within an hour: ${remaining.map((i) => i.instanceId).join(', ')}`);
      }
      await world.sleep(TICK_MS);
      continue;
    }
    protectedSince = undefined;
    refresh.statusReason = undefined;
    const batch = candidates.slice(0, batchSize);
    for (const instance of batch) beginTermination(world, cluster, asg, instance, `At ${new Date(world.clock.now()).toISOString()} an instance was taken out of service as part of instance refresh ${refresh.id}.`);
    // The batch is done once its instances are gone and the group is back at desired capacity, InService and warm.
    for (;;) {
      await world.sleep(TICK_MS);
      const gone = batch.every((i) => !asg.instances.has(i.instanceId));
      const live = liveInstances(asg);
      if (gone && live.length >= asg.desiredCapacity && live.every((i) => i.lifecycleState === 'InService')) break;
    }
    await world.sleep(refresh.instanceWarmup * 1000);
    refresh.replaced += batch.length;
  }
}
