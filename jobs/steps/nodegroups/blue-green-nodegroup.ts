import type { CreateNodegroupRequest, Nodegroup } from '@aws-sdk/client-eks';
import { decideBlueGreenPhase } from '../../../src/planning/deciders/decide-blue-green-phase.js';
import { greenNameFor } from '../../../src/planning/deciders/decide-nodegroup-action.js';
import { describeBlocker } from '../../../src/planning/workloads/find-drain-blockers.js';
import { StepFailure, type StepContext, type StepResult } from '../../engine/step-context.js';
import { kubeletMinorOf } from '../../../src/planning/kubelet-skew.js';
import { countRollout, describeLanding, isNodeReady, oldNodesOf } from '../../../src/planning/nodegroup-rollout.js';
import { inspectDrain, type DrainInspection, type ForcedDrain } from '../../engine/drain-inspection.js';
import { plannedQuestion } from '../../engine/planned-gates.js';
import { formatDuration } from '../../../src/report/format-text.js';
import { nodegroupStateOf, reportUnsettled, saveNodegroupState, type NodegroupState } from './nodegroup-state.js';
import { createRolloutReporter, lazyNodegroupWatch, NODEGROUP_SETTLE, waitUntilRolledOut, type NodegroupWatch } from './nodegroup-watch.js';
import { mention } from '../../../src/report/format-text.js';
import { requestToken } from '../../engine/request-token.js';
import { describeInstead, execute, readsEarlierHopsAsDone, halted } from '../../engine/execute-commands.js';

/**
 * A managed node group upgraded blue/green (the workshop's blue-mng → green-mng): create a clone at the target
 * (same labels, taints, subnets, instance types, sizes), wait until it is ACTIVE with its nodes Ready, ask, then
 * delete the blue group and follow its drain until its nodes are gone, and report where the pods landed. AWS state
 * (DescribeNodegroup) is read at the bounded poll rate; the nodes of both groups and the pods on them come from a
 * watch. Each turn reads both groups, asks the pure decider (src/planning/deciders/decide-blue-green-phase.ts) for the one next
 * thing, does it and saves — the green group is found by the name stored in job.data before it was created, the
 * blue group's deletion is seen in its status — so a resumed job neither creates two greens nor deletes twice. A drain blocked by a PDB (EKS reports PodEvictionFailure on the group) stops at a gate with the
 * blocking pods, the safe remedy and Force (delete the blocking pods; EKS's drain keeps retrying and then finishes).
 */
interface BlueGreenState extends NodegroupState {
  green?: string;
  greenReady?: boolean;
  deleteIssued?: boolean;
  remedied?: string[];
  /** Force applied at the drain gate, with the gate revision it answered (a re-run does not delete again). */
  forced?: ForcedDrain & { revision: number };
  /** When DescribeNodegroup first answered that blue is gone (its Node objects get a bounded wait after that). */
  blueGoneAt?: number;
  /** Blue's deletion was followed to its end (the group and its Node objects gone, or given up on with a warning). */
  blueGone?: boolean;
  /** The last answer at the drain gate: if the block outlasts DRAIN_RECHECK_MS after it, the gate is offered again. */
  drainAnswer?: { revision: number; at: number; action: string };
}

/**
 * How long a drain may stay blocked after an answer before the choice is offered again (EKS keeps retrying the
 * evictions meanwhile). An object, as NODEGROUP_SETTLE, so a test on the real clock can shorten it.
 */
export const DRAIN_RECHECK = { ms: 5 * 60_000 };

const isNotFound = (error: unknown) => ['ResourceNotFoundException', 'NotFoundException'].includes((error as Error)?.name);

async function describeOrUndefined(ctx: StepContext, name: string): Promise<Nodegroup | undefined> {
  try {
    return await ctx.eks.describeNodegroup(ctx.data.cluster, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function cloneRequest(blue: Nodegroup, green: string, to: string, token: string): CreateNodegroupRequest {
  const custom = blue.amiType === 'CUSTOM';
  return {
    clusterName: blue.clusterName,
    nodegroupName: green,
    version: custom ? undefined : to,
    scalingConfig: blue.scalingConfig,
    subnets: blue.subnets,
    instanceTypes: blue.launchTemplate ? undefined : blue.instanceTypes,
    amiType: custom ? undefined : blue.amiType,
    capacityType: blue.capacityType,
    diskSize: blue.launchTemplate ? undefined : blue.diskSize,
    nodeRole: blue.nodeRole,
    labels: blue.labels,
    taints: blue.taints,
    tags: blue.tags,
    updateConfig: blue.updateConfig,
    launchTemplate: blue.launchTemplate ? { id: blue.launchTemplate.id, version: blue.launchTemplate.version } : undefined,
    clientRequestToken: token,
  };
}

export async function upgradeBlueGreen(ctx: StepContext, blueName: string, lines: string[]): Promise<StepResult | undefined> {
  const { data, step } = ctx;
  const state = nodegroupStateOf(ctx, blueName) as BlueGreenState;
  if (state.final) {
    lines.push(state.note ?? `${blueName}: ${state.final}`);
    return undefined;
  }
  // A later hop of a dry run starts from the green group the previous hop would have created.
  const replace = describeInstead(ctx, { kind: 'replace-nodegroup', blue: readsEarlierHopsAsDone(ctx) ? greenNameFor(blueName, step.from) : blueName, green: greenNameFor(blueName, step.to), to: step.to });
  if (replace) {
    // Described, not done: one read says whether there is anything to describe.
    const blue = await describeOrUndefined(ctx, blueName);
    lines.push(blue && blue.version === step.to ? `${blueName}: already at ${step.to}` : replace);
    return undefined;
  }
  const greenName = state.green ?? greenNameFor(blueName, step.to);
  const watch = lazyNodegroupWatch(ctx, [blueName, greenName]);
  try {
    // Read the world, decide the one next thing (decide-blue-green-phase.ts), do it, save, and look again.
    for (;;) {
      const blue = await describeOrUndefined(ctx, blueName);
      const green = state.green ? await describeOrUndefined(ctx, state.green) : undefined;
      const phase = decideBlueGreenPhase({ saved: state, blue, green, to: step.to });
      switch (phase) {
        case 'already-at-target':
          lines.push(`${blueName}: already at ${step.to}`);
          await saveNodegroupState(ctx, blueName, { ...state, final: 'unchanged', note: `${blueName}: already at ${step.to}` });
          return undefined;
        case 'both-gone':
          throw new StepFailure(`Blue/green upgrade of ${blueName}: both ${blueName} and ${greenName} are gone`, { remedy: 'check the node groups with `aws eks list-nodegroups`; the workloads may have nowhere to run' });
        case 'create-green':
          // The name is in job.data before the call, so a re-run finds the clone instead of creating a second one.
          Object.assign(state, { green: greenName, greenReady: undefined });
          await saveNodegroupState(ctx, blueName, state);
          await execute(ctx, { kind: 'create-nodegroup', request: cloneRequest(blue!, greenName, step.to, requestToken(data.jobId, greenName)), blue: blueName, record: `${blueName}:create`, event: `bg:${blueName}:create` });
          continue;
        case 'wait-green':
          await waitForGreen(ctx, await watch.get(), greenName);
          state.greenReady = true;
          await saveNodegroupState(ctx, blueName, state);
          continue;
        case 'delete-blue': {
          // The approved plan's question, in its words; none when clusters.yaml turned node-group gates off (a job
          // without a plan, and a rollback, ask as they always did).
          const planned = !ctx.step.actions || data.rollback ? `${greenName} is Ready at ${step.to}. Delete ${blueName} (its nodes are drained)?` : plannedQuestion(ctx, `nodegroup/${blueName}`);
          const outcome = planned
            ? await execute(ctx, {
              kind: 'ask-gate',
              gate: {
                gateId: `h${step.hop}-bg-${blueName}`,
                title: planned,
                details: [`${greenName} is Ready at ${step.to}. Pods on ${blueName} move to ${greenName} as EKS drains ${blueName}; PDBs are respected.`],
                actions: ['continue', 'abort'],
              },
            })
            : undefined;
          if (outcome && outcome.kind !== 'answered') return halted(outcome);
          // Already being deleted (our own call whose answer was lost) is adopted by the executor.
          state.deleteIssued = true;
          await execute(ctx, { kind: 'delete-nodegroup', cluster: data.cluster, nodegroup: blueName, record: `${blueName}:delete`, event: `bg:${blueName}:delete`, save: { [`ng:${blueName}`]: state } });
          continue;
        }
        case 'follow-deletion': {
          const blocked = await followDeletion(ctx, await watch.get(), blueName, greenName, state);
          if (blocked) return blocked;
          state.blueGone = true;
          await saveNodegroupState(ctx, blueName, state);
          continue;
        }
        case 'finish':
          return await finish(ctx, await watch.get(), blueName, greenName, green?.scalingConfig?.desiredSize ?? 0, state, lines, watch.get);
      }
    }
  } finally {
    watch.stop();
  }
}

/** Every green node at the target and Ready (or a warning naming those that are not); where the pods landed. */
async function finish(ctx: StepContext, watch: NodegroupWatch, blueName: string, green: string, desired: number, state: BlueGreenState, lines: string[], getWatch: () => Promise<NodegroupWatch>): Promise<undefined> {
  const { step } = ctx;
  state.settleFrom ??= ctx.clock.now();
  await saveNodegroupState(ctx, blueName, state);
  const report = createRolloutReporter(ctx, getWatch, { group: green, key: () => `bg:${blueName}`, desired: () => desired });
  const settle = await waitUntilRolledOut(ctx, watch, { group: green, key: `bg:${blueName}`, deadline: state.settleFrom + NODEGROUP_SETTLE.timeoutMs, report });
  const lagging = settle.settled ? undefined : await reportUnsettled(ctx, green, settle);
  const landed = describeLanding(watch.nodes(green).map((node) => node.metadata.name), watch.pods());
  await ctx.emit(`bg:${blueName}:landed`, { kind: 'progress', at: ctx.clock.now(), step: step.id, text: `Pods of ${blueName} now run on ${green}: ${landed.text}.` });
  const note = `${blueName} → ${green} at ${step.to} (blue/green; ${landed.count} pods now on ${green}${lagging ? `; ${lagging}` : ''})`;
  ctx.recordActed({ resource: `nodegroup/${blueName}`, action: 'blue-green', to: step.to, outcome: 'done', note: `replaced by ${green}` });
  await saveNodegroupState(ctx, blueName, { ...state, final: 'updated', note });
  lines.push(note);
  return undefined;
}

/** CreateNodegroup runs for minutes: its status is read at the poll interval, its nodes' readiness from the watch. */
async function waitForGreen(ctx: StepContext, watch: NodegroupWatch, green: string): Promise<void> {
  for (;;) {
    const current = await ctx.eks.describeNodegroup(ctx.data.cluster, green);
    if (current.status === 'CREATE_FAILED') {
      throw new StepFailure(`Creating node group ${green} failed: ${(current.health?.issues ?? []).map((i) => `${i.code}: ${i.message}`).join('; ') || 'no reason given'}`, { remedy: `fix the cause, delete ${green}, then start the upgrade again` });
    }
    const wanted = current.scalingConfig?.desiredSize ?? 1;
    const nextPoll = ctx.clock.now() + ctx.pollIntervalMs;
    do {
      const ready = watch.nodes(green).filter((node) => isNodeReady(node) && kubeletMinorOf(node) === ctx.step.to).length;
      await ctx.setProgress(`Node group ${green}: ${current.status}, ${ready}/${wanted} nodes Ready at ${ctx.step.to}`);
      if (current.status === 'ACTIVE' && ready >= wanted) return;
      await watch.changed(nextPoll - ctx.clock.now());
    } while (ctx.clock.now() < nextPoll);
  }
}

/**
 * Follows the blue group's deletion: DescribeNodegroup at the poll interval (until it is gone, and for the
 * PodEvictionFailure health issue that means a PDB blocks the drain), its nodes and the pods moving to green from
 * the watch. Ends when the group and its Node objects are gone, or — with a warning — when Node objects outlive
 * the group past the settle timeout.
 */
async function followDeletion(ctx: StepContext, watch: NodegroupWatch, blueName: string, green: string, state: BlueGreenState): Promise<StepResult | undefined> {
  // What blocks the drain is read once per run of the step, not at every poll while the block lasts.
  let drain: DrainInspection | undefined;
  for (;;) {
    const blue = await describeOrUndefined(ctx, blueName);
    const evictionIssue = blue?.health?.issues?.find((issue) => issue.code === 'PodEvictionFailure');
    const gateId = `h${ctx.step.hop}-bg-${blueName}-drain`;
    if (evictionIssue && state.drainAnswer && ctx.clock.now() - state.drainAnswer.at >= DRAIN_RECHECK.ms) {
      // The answer did not clear the block (Continue while PDBs still block, a remedy that was not enough): a fresh
      // card offers the choice again, so the job never waits with no way forward.
      const { action, revision } = state.drainAnswer;
      await execute(ctx, { kind: 'reopen-gate', gateId });
      state.drainAnswer = undefined;
      await saveNodegroupState(ctx, blueName, state);
      drain = undefined;
      await ctx.emit(`bg:${blueName}:still-blocked:${revision}`, {
        kind: 'note', at: ctx.clock.now(), level: 'warning',
        text: `The drain of ${blueName} is still blocked ${formatDuration(DRAIN_RECHECK.ms)} after ${action === 'continue' ? 'Continue' : action === 'force' ? 'Force' : 'the remedy'}; the choice is offered again below.`,
      });
    }
    if (evictionIssue) {
      drain ??= await inspectDrain(ctx, watch.nodes(blueName).map((n) => n.metadata.name));
      const fix = drain.remedy && !(state.remedied ?? []).includes(drain.remedy.label) ? drain.remedy : undefined;
      const outcome = await execute(ctx, {
        kind: 'ask-gate',
        gate: {
          gateId,
          title: `Deleting ${blueName} is blocked: pods cannot be evicted. ${fix ? `${fix.label}, or force?` : 'Force, keep waiting, or abort?'}`,
          details: [
            `${evictionIssue.code}: ${evictionIssue.message}`,
            ...(drain.error ? [`The blocking pods could not be read: ${drain.error}`] : drain.blockers.slice(0, 20).map(describeBlocker)),
            `Force deletes the blocking pods (a delete is not an eviction: PDBs do not stop it); their Deployments recreate them on ${green}, pods without a controller are gone for good.`,
          ],
          actions: fix ? ['remedy', 'force', 'continue', 'abort'] : ['force', 'continue', 'abort'],
          remedyLabel: fix?.label,
        },
      });
      if (outcome.kind !== 'answered') return halted(outcome);
      const revision = (ctx.stepState()[`gate:${gateId}`] as { revision?: number } | undefined)?.revision ?? 1;
      if (state.drainAnswer?.revision !== revision) {
        state.drainAnswer = { revision, at: ctx.clock.now(), action: outcome.action };
        await saveNodegroupState(ctx, blueName, state);
      }
      if (outcome.action === 'force' && state.forced?.revision !== revision) {
        const deleted = await execute(ctx, { kind: 'force-drain', nodes: watch.nodes(blueName).map((n) => n.metadata.name), by: outcome.by, reason: outcome.reason });
        if (deleted.kind !== 'forced') return halted(deleted);
        const { forced } = deleted;
        state.forced = { ...forced, revision };
        await saveNodegroupState(ctx, blueName, state);
        await ctx.emit(`bg:${blueName}:forced:${revision}`, {
          kind: 'note', at: forced.at, level: 'warning',
          text: [
            `Force on the drain of ${blueName}, by ${mention(forced.by)}: ${forced.pods.length ? `deleted ${forced.pods.map((pod) => `\`${pod}\``).join(', ')} (PDBs bypassed)` : 'no pod blocked the drain any more; nothing deleted'}.`,
            `Reason: ${forced.reason ?? 'none given'}`,
          ].join('\n'),
        });
      }
      if (outcome.action === 'remedy' && fix) {
        await execute(ctx, { kind: 'scale-for-drain', remedy: fix });
        state.remedied = [...(state.remedied ?? []), fix.label];
        await saveNodegroupState(ctx, blueName, state);
        drain = undefined;
      }
    }
    if (!blue) {
      state.blueGoneAt ??= ctx.clock.now();
      await saveNodegroupState(ctx, blueName, state);
    }
    const nextPoll = ctx.clock.now() + ctx.pollIntervalMs;
    do {
      const counts = countRollout(watch.nodes(blueName), watch.pods(), ctx.step.to, 0);
      const left = oldNodesOf(counts);
      const landed = describeLanding(watch.nodes(green).map((node) => node.metadata.name), watch.pods());
      await ctx.setProgress(`Node group ${blueName}: ${blue?.status ?? 'deleted'}, ${left} node(s) left${counts.draining ? ` (${counts.draining} draining)` : ''}; ${landed.count} pods on ${green}`);
      if (!blue && left === 0) return undefined;
      if (state.blueGoneAt !== undefined && ctx.clock.now() >= state.blueGoneAt + NODEGROUP_SETTLE.timeoutMs) {
        await ctx.emit(`bg:${blueName}:lingering`, {
          kind: 'note', at: ctx.clock.now(), level: 'warning',
          text: [`Node group ${blueName} is deleted, but ${left} of its Node objects are still in the cluster:`, ...counts.laggards.slice(0, 20).map((node) => `• ${node}`), 'What to do: check that their instances are terminated, then `kubectl delete node <name>`.'].join('\n'),
        });
        return undefined;
      }
      await watch.changed(nextPoll - ctx.clock.now());
    } while (ctx.clock.now() < nextPoll);
  }
}
