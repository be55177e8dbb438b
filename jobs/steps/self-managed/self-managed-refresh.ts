import type { SelfManagedGroupState, SelfManagedView } from '../../../src/planning/deciders/decide-self-managed-action.js';
import { countAtTarget } from '../../../src/planning/deciders/decide-self-managed-action.js';
import type { AutoScalingGroupInfo } from '../../../src/ports/aws/autoscaling-port.js';
import { StepFailure, type StepContext, type StepResult } from '../../engine/step-context.js';
import { drainNode } from './self-managed-drain.js';
import { instanceViews } from './self-managed-world.js';
import { mention } from '../../../src/report/format-text.js';
import { ACTIVE_REFRESH, execute } from '../../engine/execute-commands.js';

/**
 * `strategy: instance-refresh`: a termination lifecycle hook holds each instance the refresh takes out of service
 * in Terminating:Wait; the bot drains its node (PDBs honoured, the same blocked-drain card) and then lets it go
 * with CompleteLifecycleAction. StartInstanceRefresh keeps MinHealthyPercentage from clusters.yaml and SkipMatching
 * (instances already on the new version stay). The refresh is followed with DescribeInstanceRefreshes once per poll
 * interval; the hook is removed when the refresh ends. Abort cancels the refresh after the node being drained.
 */
export const DRAIN_HOOK = 'eks-upgrade-bot-drain';
/** How long a held instance may wait for its drain before Auto Scaling continues on its own (the hook's heartbeat). */
const HOOK_HEARTBEAT_S = 1800;
const ACTIVE = ACTIVE_REFRESH;

type RefreshState = SelfManagedGroupState & { hook?: boolean };

export async function startOrAdoptRefresh(ctx: StepContext, group: string, state: RefreshState, minHealthyPercentage: number, save: () => Promise<void>): Promise<void> {
  if (!state.hook) {
    await execute(ctx, { kind: 'put-drain-hook', group, hook: DRAIN_HOOK, heartbeatSeconds: HOOK_HEARTBEAT_S });
    state.hook = true;
    await save();
  }
  // A refresh started by this job before a crash (its id not yet saved) is adopted, not started twice.
  const latest = (await ctx.autoScaling.describeInstanceRefreshes(group))[0];
  if (latest && ACTIVE.includes(latest.status)) {
    state.refreshId = latest.id;
    await save();
    return;
  }
  // Started, or adopted when EKS says one runs already (our own call whose answer was lost), by the executor.
  const started = await execute(ctx, { kind: 'start-instance-refresh', group, minHealthyPercentage });
  if (started.kind !== 'refresh') return;
  state.refreshId = started.refreshId;
  await save();
}

export async function followRefresh(
  ctx: StepContext,
  input: { group: string; refreshId: string; state: RefreshState; save: () => Promise<void>; view: SelfManagedView; info: AutoScalingGroupInfo },
): Promise<StepResult | undefined> {
  const { group, refreshId, state } = input;
  let info = input.info;
  for (;;) {
    const controls = await ctx.controls();
    if (controls.abort) {
      await execute(ctx, { kind: 'cancel-instance-refresh', group });
      await removeHook(ctx, group, state, input.save);
      return { outcome: 'abort', by: controls.abort.by, reason: `${mention(controls.abort.by)} aborted; the instance refresh of ${group} was cancelled after the node being replaced` };
    }
    const nodes = (await (await ctx.kube()).list('nodes')).items;
    for (const held of instanceViews(info, nodes).filter((i) => i.lifecycleState === 'Terminating:Wait' && i.node)) {
      await execute(ctx, { kind: 'cordon-node', node: held.node!.name });
      const drain = await drainNode(ctx, { group, node: held.node!.name, stateKey: `smg:${group}:drain` });
      if (!drain.drained) return drain.result;
      // A heartbeat that ran out meanwhile (Auto Scaling went on by itself) is adopted: the node is drained either way.
      await execute(ctx, { kind: 'complete-drain-hook', group, hook: DRAIN_HOOK, instanceId: held.instanceId });
      state.replaced = [...(state.replaced ?? []), held.instanceId];
      await input.save();
      await ctx.emit(`smg:${group}:drained:${held.instanceId}`, {
        kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
        text: `${group}: ${held.node!.name} drained (${drain.evicted.length} pod(s) evicted) before the instance refresh terminated ${held.instanceId}.`,
      });
    }
    const [refresh] = await ctx.autoScaling.describeInstanceRefreshes(group, [refreshId]);
    const { atTarget, total } = countAtTarget({ instances: instanceViews(info, nodes), target: ctx.step.to });
    await ctx.setProgress(`${group}: ${atTarget}/${Math.max(total, info.desiredCapacity)} nodes at ${ctx.step.to} (instance refresh ${refresh?.percentageComplete ?? 0}%)`);
    if (!refresh || !ACTIVE.includes(refresh.status)) {
      await removeHook(ctx, group, state, input.save);
      if (refresh?.status === 'Successful') return undefined;
      throw new StepFailure(`self-managed group ${group}: instance refresh ${refreshId} ended ${refresh?.status ?? 'missing'}${refresh?.statusReason ? `: ${refresh.statusReason}` : ''}`, {
        remedy: `see aws autoscaling describe-instance-refreshes --auto-scaling-group-name ${group}; fix what it names (e.g. remove scale-in protection), then start the upgrade again`,
      });
    }
    await ctx.sleep(ctx.pollIntervalMs);
    [info] = await ctx.autoScaling.describeGroups([group]);
    if (!info) throw new StepFailure(`self-managed group ${group} disappeared during its instance refresh`);
  }
}

/** Removes the drain hook this job put on the group, if it did (also when a re-run finds the refresh already over). */
export async function removeHook(ctx: StepContext, group: string, state: RefreshState, save: () => Promise<void>): Promise<void> {
  if (!state.hook) return;
  await execute(ctx, { kind: 'remove-drain-hook', group, hook: DRAIN_HOOK });
  state.hook = false;
  await save();
}
