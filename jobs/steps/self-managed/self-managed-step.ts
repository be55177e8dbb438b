import { selfManagedPolicyFor } from '../../../src/config/clusters-config.js';
import { amiSourceHint, selfManagedAmiSource } from '../../../src/planning/deciders/ami-source.js';
import { computeOfNode } from '../../../src/planning/compute-groups.js';
import { countAtTarget, decideAbortRestore, decideSelfManagedAction, selfManagedWorldDecision, type SelfManagedGroupState, type SelfManagedView } from '../../../src/planning/deciders/decide-self-managed-action.js';
import type { AutoScalingGroupInfo } from '../../../src/ports/aws/autoscaling-port.js';
import type { KubeObject } from '../../../src/ports/kube-port.js';
import { describeError } from '../../engine/classify-error.js';
import { StepFailure, type Step, type StepContext, type StepResult } from '../../engine/step-context.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import { safePoint } from '../../engine/safe-point.js';
import { drainNode } from './self-managed-drain.js';
import { followRefresh, removeHook, startOrAdoptRefresh } from './self-managed-refresh.js';
import { REPLACEMENT_TIMEOUT_MS, waitForGroupChange, waitForReplacement } from './self-managed-wait.js';
import { findClusterGroups, groupImage, instanceViews, readGroupView } from './self-managed-world.js';
import type { AskGateCommand } from '../../engine/commands.js';
import { completed, describeInstead, execute } from '../../engine/execute-commands.js';

/**
 * Self-managed node groups (Auto Scaling groups whose instances join the cluster), one group at a time. For each:
 * the N+1 AMI of the group's own family, architecture and variant (or clusters.yaml's source), a new launch
 * template version with only the image id changed, the group pointed at it, then its nodes replaced — by the bot
 * one at a time (cordon, drain through the Eviction API, TerminateInstanceInAutoScalingGroup keeping the desired
 * capacity, wait for the replacement Ready at N+1 with the pods scheduled), or by an instance refresh whose
 * terminations wait on a lifecycle hook while the bot drains each node. Every decision comes from
 * decideSelfManagedAction over the world read afresh; each termination is recorded before it is issued. Only the
 * Auto Scaling groups the approved plan names (`asg/<name>` roll-self-managed) are acted on (jobs/engine/plan-check.ts).
 */
type GroupState = SelfManagedGroupState & { targetImageId?: string; hook?: boolean };

const stateKey = (group: string) => `smg:${group}`;
/** The group in the plan's actions and the job's acted record. */
const resourceOf = (group: string) => `asg/${group}`;
export const groupStateOf = (ctx: StepContext, group: string): GroupState => ({ ...((ctx.stepState()[stateKey(group)] ?? {}) as GroupState) });
export const saveGroupState = (ctx: StepContext, group: string, state: GroupState) => ctx.saveStepState({ [stateKey(group)]: state });

export const selfManagedStep: Step = async (ctx) => {
  let nodes: KubeObject[];
  try {
    nodes = (await (await ctx.kube()).list('nodes')).items;
  } catch (error) {
    throw new Error(`reading the nodes to find self-managed groups: ${describeError(error)}`, { cause: error });
  }
  const found = await findClusterGroups(ctx, nodes);
  if (found.length === 0) {
    const orphans = nodes.filter((n) => computeOfNode(n).type === 'self-managed').length;
    return { outcome: 'skipped', summary: orphans ? `${orphans} self-managed node(s) belong to no Auto Scaling group the bot can see; replace them by hand` : 'no self-managed node groups' };
  }
  // Decide with the planner's rule what each group needs now, against the approved plan; groups with saved state
  // (a re-run after a crash) carry on whatever the plan check says now.
  const act = await resourcesToAct(ctx, () => found.map((group) => selfManagedWorldDecision(group.name, instanceViews(group, nodes), ctx.step.to)));
  const groups = found.filter((group) => !ctx.step.actions || act.has(resourceOf(group.name)) || ctx.stepState()[stateKey(group.name)] !== undefined);
  if (groups.length === 0) return { outcome: 'skipped', summary: 'no self-managed group needs a roll (see the note above for what changed since the plan)' };
  const lines: string[] = [];
  for (const group of groups) {
    const result = await upgradeGroup(ctx, group, nodes, lines);
    if (result) return result;
  }
  return completed(ctx, lines.join('; '));
};

async function upgradeGroup(ctx: StepContext, group: AutoScalingGroupInfo, nodes: KubeObject[], lines: string[]): Promise<StepResult | undefined> {
  const { step, data } = ctx;
  const name = group.name;
  const state = groupStateOf(ctx, name);
  if (state.final) {
    lines.push(`${name}: ${state.note}`);
    return undefined;
  }
  const policy = selfManagedPolicyFor(ctx.clusterConfig, name);
  const image = groupImage(group, nodes);
  const source = selfManagedAmiSource(step.to, policy, image ?? { arch: 'x86_64', variant: 'standard' });

  if (!state.targetImageId) {
    if (source.kind === 'none') return skipGate(ctx, name, state, `${name} has no AMI source for ${step.to}: ${source.reason}.`, lines);
    const imageId = source.kind === 'image' ? source.imageId : await ctx.ssm.getParameter(source.parameter);
    if (!imageId) {
      throw new StepFailure(`self-managed group ${name}: no AMI for ${step.to}: SSM parameter ${source.kind === 'parameter' ? source.parameter : '?'} does not exist`, {
        remedy: source.from === 'clusters.yaml' ? `publish the ${step.to} AMI id under that parameter, or set selfManaged.${name}.ami."${step.to}" in clusters.yaml` : `AWS publishes no such AMI for ${step.to}; move the group to another family, or ${amiSourceHint('selfManaged', name, step.to)}`,
        code: 'AMI_NOT_FOUND',
      });
    }
    state.targetImageId = imageId;
    await execute(ctx, { kind: 'save-state', patch: { [stateKey(name)]: state } });
  }
  const roll = describeInstead(ctx, {
    kind: 'roll-self-managed', group: name, imageId: state.targetImageId, source: source.kind === 'none' ? '' : source.label,
    instances: group.instances.length, strategy: policy.strategy, minHealthyPercentage: policy.minHealthyPercentage,
  });
  if (roll) {
    lines.push(roll);
    return undefined;
  }

  let waitingSince: number | undefined;
  for (;;) {
    const current = (await (await ctx.kube()).list('nodes')).items;
    const { view, info } = await readGroupView(ctx, { group: name, nodes: current, strategy: policy.strategy, targetImageId: state.targetImageId, state });
    if (!state.previous) {
      state.previous = { groupVersion: view.groupVersion, defaultVersion: view.versions.find((v) => v.isDefault)?.version ?? Number(view.groupVersion) };
      await saveGroupState(ctx, name, state);
    }
    const { atTarget, total } = countAtTarget(view);
    await ctx.setProgress(`${name}: ${atTarget}/${Math.max(total, view.desiredCapacity)} nodes at ${step.to}`);
    const action = decideSelfManagedAction(view);
    if (action.kind !== 'wait') waitingSince = undefined;
    switch (action.kind) {
      case 'create-version': {
        const created = await execute(ctx, {
          kind: 'create-launch-template-version', group: name, launchTemplateId: view.launchTemplateId, template: view.launchTemplateId, sourceVersion: action.sourceVersion,
          imageId: action.imageId, source: source.kind === 'none' ? '' : source.label, description: `eks-upgrade-bot ${data.jobId}: ${step.to}`, event: `smg:${name}:version`,
        });
        if (created.kind !== 'version') break;
        state.newVersion = created.version;
        await saveGroupState(ctx, name, state);
        break;
      }
      case 'point-group':
        state.newVersion = action.version;
        await execute(ctx, {
          kind: 'point-group', group: name, launchTemplateId: view.launchTemplateId, version: String(action.version), defaultVersion: action.setDefault ? action.version : undefined,
          save: { [stateKey(name)]: state }, event: `smg:${name}:pointed`,
          text: `${name}: the group now launches launch template version ${action.version} (also the template's default); replacing its ${view.instances.length} node(s) ${policy.strategy === 'instance-refresh' ? 'by an instance refresh' : 'one at a time'}.`,
        });
        break;
      case 'replace': {
        const stop = await safePoint(ctx, `replacing ${action.node} of ${name}`);
        if (stop) return stop.outcome === 'abort' ? abortGroup(ctx, name, state, view, stop) : stop;
        state.current = { instanceId: action.instanceId, node: action.node };
        await saveGroupState(ctx, name, state);
        const result = await drainAndTerminate(ctx, name, state);
        if (result) return result;
        break;
      }
      case 'finish-replacement': {
        if (!action.terminated) {
          const result = await drainAndTerminate(ctx, name, state);
          if (result) return result;
          break;
        }
        await waitForReplacement(ctx, { group: name, node: action.node, instanceId: action.instanceId, namespaces: state.current?.namespaces });
        state.replaced = [...(state.replaced ?? []), action.instanceId];
        state.current = undefined;
        await saveGroupState(ctx, name, state);
        break;
      }
      case 'start-refresh':
        await startOrAdoptRefresh(ctx, name, state, policy.minHealthyPercentage, () => saveGroupState(ctx, name, state));
        break;
      case 'follow-refresh': {
        const result = await followRefresh(ctx, { group: name, refreshId: action.refreshId, state, save: () => saveGroupState(ctx, name, state), view, info });
        if (result) return result;
        break;
      }
      case 'wait':
        waitingSince ??= ctx.clock.now();
        if (ctx.clock.now() - waitingSince > REPLACEMENT_TIMEOUT_MS) {
          throw new StepFailure(`self-managed group ${name}: still waiting after ${REPLACEMENT_TIMEOUT_MS / 60_000} minutes: ${action.reason}`, {
            remedy: `look at the group (aws autoscaling describe-scaling-activities --auto-scaling-group-name ${name}) and its nodes (kubectl get nodes -o wide), then start the upgrade again`,
          });
        }
        await waitForGroupChange(ctx, name, action.reason);
        continue;
      case 'done': {
        // A re-run that finds the refresh already over (its worker died, or a call's answer was lost) still removes
        // the drain hook it put on the group.
        if (state.hook) await removeHook(ctx, name, state, () => saveGroupState(ctx, name, state));
        const moved = (state.replaced?.length ?? 0) > 0 || state.refreshId;
        Object.assign(state, { final: moved ? 'updated' : 'unchanged', note: `${action.upgraded}/${action.total} nodes at ${step.to}${moved ? ` (launch template version ${state.newVersion}, ${policy.strategy})` : ' already'}, desired capacity ${info.desiredCapacity}` });
        ctx.recordActed({ resource: resourceOf(name), action: 'roll-self-managed', to: step.to, outcome: moved ? 'done' : 'already', note: state.note });
        await saveGroupState(ctx, name, state);
        lines.push(`${name}: ${state.note}`);
        return undefined;
      }
    }
  }
}

/** Cordon, drain, then terminate — the termination recorded in job state before the call, never issued twice. */
async function drainAndTerminate(ctx: StepContext, group: string, state: GroupState): Promise<StepResult | undefined> {
  const current = state.current!;
  await execute(ctx, { kind: 'cordon-node', node: current.node });
  const drain = await drainNode(ctx, { group, node: current.node, stateKey: `smg:${group}:drain` });
  if (!drain.drained) return drain.result;
  current.terminated = true;
  current.namespaces = [...new Set(drain.evicted.map((pod) => pod.split('/')[0]))];
  await saveGroupState(ctx, group, state);
  await execute(ctx, { kind: 'terminate-instance', group, instanceId: current.instanceId, node: current.node, evicted: drain.evicted.length });
  return undefined;
}

/** Abort between nodes: the group goes back to its previous version while nothing has moved yet. */
async function abortGroup(ctx: StepContext, group: string, state: GroupState, view: SelfManagedView, stop: Extract<StepResult, { outcome: 'abort' }>): Promise<StepResult> {
  await restoreIfUnmoved(ctx, group, state, view);
  return stop;
}

export async function restoreIfUnmoved(ctx: StepContext, group: string, state: GroupState, view: Pick<SelfManagedView, 'instances' | 'state' | 'groupVersion' | 'target' | 'launchTemplateId'>): Promise<void> {
  const restore = decideAbortRestore(view);
  if (!restore) return;
  // "Before any node moved" only when true: a node drained for its replacement (not yet terminated) did move its pods.
  const drained = state.current && !state.current.terminated ? state.current.node : undefined;
  const before = drained
    ? `aborted before any instance was replaced (${drained} was cordoned and drained: \`kubectl uncordon ${drained}\` to use it again)`
    : 'aborted before any node moved';
  Object.assign(state, { final: 'restored', note: `${before}; the group is back on launch template version ${restore.groupVersion} (default ${restore.defaultVersion})` });
  await execute(ctx, {
    kind: 'point-group', group, launchTemplateId: view.launchTemplateId, version: restore.groupVersion, defaultVersion: restore.defaultVersion, restore: true,
    save: { [stateKey(group)]: state }, event: `smg:${group}:restored`, text: `${group}: ${state.note}.`,
  });
}

/** A group the bot has no AMI for: Force skips it (recorded), Abort stops the job. */
async function skipGate(ctx: StepContext, name: string, state: GroupState, why: string, lines: string[]): Promise<StepResult | undefined> {
  const ask: AskGateCommand = {
    kind: 'ask-gate',
    gate: {
      gateId: `h${ctx.step.hop}-smg-${name}-ami`,
      title: `Self-managed group ${name} has no ${ctx.step.to} AMI source. Skip it, or abort?`,
      details: [why, `What to do: ${amiSourceHint('selfManaged', name, ctx.step.to)} and start again — or Force to skip the group for now.`],
      actions: ['force', 'abort'],
    },
    said: `${name}: would stop at a gate: ${why}`,
    skip: { resource: resourceOf(name), action: 'roll-self-managed', stateKey: stateKey(name), state, why: 'no AMI source' },
  };
  const asked = await execute(ctx, ask);
  if (asked.kind === 'stop') return asked.result;
  lines.push(asked.kind === 'described' ? asked.text : `${name}: ${asked.skipped}`);
  return undefined;
}

/**
 * The job was aborted while this step was parked (paused between nodes, or at a gate): every group this job
 * pointed at a new version with no node moved yet goes back to its previous version and default, as at a safe point.
 */
export async function selfManagedCleanup(ctx: StepContext): Promise<void> {
  for (const key of Object.keys(ctx.stepState()).filter((k) => k.startsWith('smg:') && k.split(':').length === 2)) {
    const group = key.slice('smg:'.length);
    const state = groupStateOf(ctx, group);
    if (state.final || state.newVersion === undefined || !state.targetImageId) continue;
    try {
      const nodes = (await (await ctx.kube()).list('nodes')).items;
      const { view } = await readGroupView(ctx, { group, nodes, strategy: 'rolling', targetImageId: state.targetImageId, state });
      await restoreIfUnmoved(ctx, group, state, view);
    } catch (error) {
      ctx.logger.warn({ err: error, group }, 'restoring the launch template version of a self-managed group after an abort failed');
    }
  }
}
