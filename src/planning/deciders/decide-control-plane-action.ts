import type { Update } from '@aws-sdk/client-eks';

/**
 * What the control-plane step should do, decided from a fresh read of the world. This is what makes the step
 * idempotent: a job resumed after a crash (or a second worker) re-reads the cluster and its updates and either
 * finds the work done, follows the update already running, or — only when neither — issues UpdateClusterVersion.
 */
export type ControlPlaneAction =
  | { action: 'done'; reason: string }
  | { action: 'adopt'; updateId: string; ours: boolean; reason: string }
  | { action: 'issue'; reason: string }
  /** Another kind of cluster update runs (logging, endpoint access …): EKS refuses a version update meanwhile. */
  | { action: 'wait'; updateId: string; reason: string }
  | { action: 'failed'; update: Update; reason: string }
  | { action: 'blocked'; reason: string; remedy: string };

export interface ControlPlaneWorld {
  clusterName: string;
  /** DescribeCluster.version */
  clusterVersion: string;
  /** The hop: from → target, target = from + 1. */
  hopFrom: string;
  target: string;
  /** Recent updates of the cluster (DescribeUpdate of ListUpdates' ids). */
  updates: Update[];
  /** The update this job issued or adopted earlier, freshly described, if any. */
  recorded?: Update;
  /** A rollback job (issue 10): the update to adopt is a VersionRollback to the target, not a VersionUpdate. */
  rollback?: boolean;
}

const VERSION_TYPES = new Set(['VersionUpdate', 'VersionRollback']);

export function versionParamOf(update: Update): string | undefined {
  return update.params?.find((param) => param.type === 'Version')?.value;
}

export function decideControlPlaneAction(world: ControlPlaneWorld): ControlPlaneAction {
  const { clusterName, clusterVersion, hopFrom, target, updates, recorded } = world;
  const ownType = world.rollback ? 'VersionRollback' : 'VersionUpdate';

  if (recorded?.id) {
    if (recorded.status === 'InProgress') {
      return { action: 'adopt', updateId: recorded.id, ours: true, reason: `update ${recorded.id} that this job issued is still in progress` };
    }
    if (recorded.status === 'Failed' || recorded.status === 'Cancelled') {
      return { action: 'failed', update: recorded, reason: `update ${recorded.id} ended ${recorded.status}` };
    }
  }

  const running = updates.filter((update) => update.status === 'InProgress');
  const versionUpdate = running.find((update) => update.type === ownType && versionParamOf(update) === target);
  if (versionUpdate?.id) {
    return {
      action: 'adopt',
      updateId: versionUpdate.id,
      ours: false,
      reason: `a version ${world.rollback ? 'rollback' : 'update'} of ${clusterName} to ${target} (${versionUpdate.id}) is already in progress; following it instead of starting another`,
    };
  }
  const otherVersionUpdate = running.find((update) => VERSION_TYPES.has(update.type ?? ''));
  if (otherVersionUpdate) {
    const kind = otherVersionUpdate.type === 'VersionRollback' ? 'a version rollback' : 'a version update';
    return {
      action: 'blocked',
      reason: `${kind} of ${clusterName} to ${versionParamOf(otherVersionUpdate) ?? 'another version'} (${otherVersionUpdate.id}) is in progress`,
      remedy: `wait until it ends, then start ${world.rollback ? 'the rollback' : 'the upgrade'} again from the version it reaches`,
    };
  }
  const otherUpdate = running[0];
  if (otherUpdate?.id) {
    return {
      action: 'wait',
      updateId: otherUpdate.id,
      reason: `a ${otherUpdate.type ?? 'cluster'} update (${otherUpdate.id}) is in progress and EKS accepts no version update until it ends`,
    };
  }

  if (clusterVersion === target) {
    return { action: 'done', reason: `${clusterName} is already at ${target}` };
  }
  if (clusterVersion === hopFrom) {
    return { action: 'issue', reason: `${clusterName} is at ${hopFrom} and no update is in progress` };
  }
  return {
    action: 'blocked',
    reason: `${clusterName} is at ${clusterVersion}, but this step expected ${hopFrom} (to ${world.rollback ? 'roll back' : 'upgrade'} to ${target})`,
    remedy: `someone changed the cluster outside this job; start a new ${world.rollback ? 'rollback' : 'upgrade'} from ${clusterVersion}`,
  };
}
