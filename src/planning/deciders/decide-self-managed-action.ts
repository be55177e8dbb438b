import { isNodeReady, kubeletMinorOf } from '../../domain/node-status.js';
import type { KubeObject } from '../../ports/kube-port.js';
import { instanceIdOfNode } from '../compute-groups.js';

/**
 * The next thing to do for one self-managed node group (an Auto Scaling group) in a hop, decided from what AWS and
 * Kubernetes say now and what the job recorded: pure, so a worker that died anywhere decides the same next step
 * from the same world. Order: a launch template version with the target AMI (only the image id changed) → the
 * group pointed at it (and made the template's default) → nodes replaced, one at a time by the bot (rolling) or by
 * an instance refresh → done. A termination recorded before its call is never issued for a second instance: the
 * recorded one is finished first.
 */
export interface GroupInstanceView {
  instanceId: string;
  lifecycleState: string;
  launchTemplateVersion?: string;
  /** The node this instance registered as, when it has. */
  node?: { name: string; minor?: string; ready: boolean };
}

export interface SelfManagedGroupState {
  /** The group's launch template version and the template's default before the job touched them. */
  previous?: { groupVersion: string; defaultVersion: number };
  /** The version this job created (or found) with the target AMI. */
  newVersion?: number;
  /** A rolling replacement in flight: recorded before the node is cordoned, `terminated` before the call. */
  current?: { instanceId: string; node: string; terminated?: boolean; namespaces?: string[] };
  /** Instances this job replaced (terminated), in order. */
  replaced?: string[];
  refreshId?: string;
  final?: 'updated' | 'unchanged' | 'skipped' | 'restored';
  note?: string;
}

export interface SelfManagedView {
  target: string;
  strategy: 'rolling' | 'instance-refresh';
  targetImageId: string;
  launchTemplateId: string;
  groupVersion: string;
  /** Every version of the template with its AMI. */
  versions: Array<{ version: number; imageId?: string; isDefault: boolean }>;
  instances: GroupInstanceView[];
  desiredCapacity: number;
  state: SelfManagedGroupState;
  /** The latest instance refresh of the group, when one exists. */
  refresh?: { id: string; status: string };
}

export type SelfManagedAction =
  | { kind: 'create-version'; sourceVersion: string; imageId: string }
  | { kind: 'point-group'; version: number; setDefault: boolean }
  | { kind: 'replace'; instanceId: string; node: string }
  | { kind: 'finish-replacement'; instanceId: string; node: string; terminated: boolean }
  | { kind: 'wait'; reason: string }
  | { kind: 'start-refresh' }
  | { kind: 'follow-refresh'; refreshId: string }
  | { kind: 'done'; upgraded: number; total: number };

const LIVE = new Set(['Pending', 'InService']);

/** An instance still to move: its node runs another minor, or it was launched from another template version. */
export function isBehind(instance: GroupInstanceView, target: string, newVersion: number | undefined): boolean {
  if (instance.node?.minor) return instance.node.minor !== target;
  return newVersion !== undefined && instance.launchTemplateVersion !== String(newVersion);
}

export function countAtTarget(view: Pick<SelfManagedView, 'instances' | 'target'>): { atTarget: number; total: number } {
  const live = view.instances.filter((i) => LIVE.has(i.lifecycleState));
  return { atTarget: live.filter((i) => i.node?.minor === view.target && i.node.ready).length, total: live.length };
}

export function decideSelfManagedAction(view: SelfManagedView): SelfManagedAction {
  const { state } = view;
  // A replacement in flight is finished before anything else, whatever the versions say now.
  if (state.current) return { kind: 'finish-replacement', instanceId: state.current.instanceId, node: state.current.node, terminated: Boolean(state.current.terminated) };

  const withTarget = view.versions.filter((v) => v.imageId === view.targetImageId).map((v) => v.version);
  const newVersion = state.newVersion ?? (withTarget.length ? Math.max(...withTarget) : undefined);
  const live = view.instances.filter((i) => LIVE.has(i.lifecycleState));
  const behind = live.filter((i) => isBehind(i, view.target, newVersion));
  if (newVersion === undefined) {
    if (behind.length === 0 && live.length > 0) return { kind: 'done', upgraded: live.length, total: live.length };
    return { kind: 'create-version', sourceVersion: view.groupVersion, imageId: view.targetImageId };
  }
  const current = view.versions.find((v) => v.version === newVersion);
  if (view.groupVersion !== String(newVersion) || !current?.isDefault) {
    return { kind: 'point-group', version: newVersion, setDefault: !current?.isDefault };
  }

  if (view.strategy === 'instance-refresh') {
    const refresh = state.refreshId && view.refresh?.id === state.refreshId ? view.refresh : undefined;
    if (refresh && ['Pending', 'InProgress', 'Cancelling'].includes(refresh.status)) return { kind: 'follow-refresh', refreshId: refresh.id };
    if (behind.length === 0) return settled(view, live);
    if (refresh && refresh.status !== 'Successful') return { kind: 'follow-refresh', refreshId: refresh.id };
    return { kind: 'start-refresh' };
  }

  // Rolling: the oldest instance behind goes next; instances still booting are waited for, not replaced.
  if (behind.length === 0) return settled(view, live);
  const next = behind.find((i) => i.lifecycleState === 'InService' && i.node);
  if (!next) return { kind: 'wait', reason: `${behind.length} instance(s) behind are still starting` };
  return { kind: 'replace', instanceId: next.instanceId, node: next.node!.name };
}

function settled(view: SelfManagedView, live: GroupInstanceView[]): SelfManagedAction {
  const { atTarget, total } = countAtTarget(view);
  if (live.length < view.desiredCapacity || atTarget < total) return { kind: 'wait', reason: `${atTarget}/${Math.max(total, view.desiredCapacity)} nodes Ready at ${view.target}` };
  return { kind: 'done', upgraded: atTarget, total };
}

/**
 * What Abort leaves behind: while no instance of the group runs the new version, the group and the template go
 * back to the version and default they had; once one has moved, the group stays on the new version (a half-moved
 * group launching old images would be the inconsistent state).
 */
export function decideAbortRestore(view: Pick<SelfManagedView, 'instances' | 'state' | 'groupVersion' | 'target'>): { groupVersion: string; defaultVersion: number } | undefined {
  const { previous, newVersion, replaced, current } = view.state;
  // An instance this job asked to terminate has moved, whatever the group's list shows now (issue 23).
  if (!previous || newVersion === undefined || (replaced?.length ?? 0) > 0 || current?.terminated) return undefined;
  const moved = view.instances.some((i) => i.launchTemplateVersion === String(newVersion) || i.node?.minor === view.target);
  return moved ? undefined : previous;
}

/**
 * The instances of an Auto Scaling group with the node each registered as (by the instance id in its providerID), as
 * the plan (from the snapshot, whose groups list instance ids only: counted in service) and the step (from
 * DescribeAutoScalingGroups) both hand them to selfManagedWorldDecision.
 */
export function instanceViewsOf(instances: Array<{ instanceId: string; lifecycleState?: string; launchTemplateVersion?: string }>, nodes: KubeObject[]): GroupInstanceView[] {
  const byInstance = new Map(nodes.map((node) => [instanceIdOfNode(node), node]));
  return instances.map((i) => {
    const node = byInstance.get(i.instanceId);
    return {
      instanceId: i.instanceId,
      lifecycleState: i.lifecycleState ?? 'InService',
      ...(i.launchTemplateVersion ? { launchTemplateVersion: i.launchTemplateVersion } : {}),
      ...(node ? { node: { name: node.metadata.name, minor: kubeletMinorOf(node), ready: isNodeReady(node) } } : {}),
    };
  });
}

/**
 * What a self-managed group needs for a hop, the way the plan names it (`asg/<name>` roll-self-managed): a roll
 * while any live instance's node runs another minor. The planner names the Auto Scaling groups holding a group's
 * nodes below the target with this rule (src/planning/planner/data-plane-steps.ts), and the step checks the world
 * against the plan with it (jobs/steps/self-managed/self-managed-step.ts): one rule for both.
 */
export function selfManagedWorldDecision(group: string, instances: GroupInstanceView[], target: string): { resource: string; action: 'roll-self-managed' | 'at-target'; reason: string } {
  const behind = instances.filter((i) => LIVE.has(i.lifecycleState) && i.node?.minor !== undefined && i.node.minor !== target);
  if (behind.length === 0) return { resource: `asg/${group}`, action: 'at-target', reason: `every node of Auto Scaling group ${group} runs ${target}` };
  return { resource: `asg/${group}`, action: 'roll-self-managed', reason: `${behind.length} node(s) of Auto Scaling group ${group} below ${target}` };
}
