import type { Nodegroup } from '@aws-sdk/client-eks';
import { nodegroupPolicyFor } from '../src/config/clusters-config.js';
import { describeBlocker, type DrainRemedy } from '../src/upgrade/find-drain-blockers.js';
import { StepFailure, type Step, type StepContext, type StepResult } from '../src/upgrade/step-context.js';
import { remedyForUpdate } from '../src/upgrade/update-error-remedies.js';
import { upgradeBlueGreen } from './blue-green-nodegroup.js';
import { customAmiLaunchTemplateVersion } from './custom-ami-version.js';
import { applyRemedy, inspectDrain } from './drain-inspection.js';
import { amiSourceHint } from '../src/planning/ami-source.js';
import { formatDuration } from './follow-update.js';
import { createRolloutReporter, followNodegroupUpdate, lazyNodegroupWatch, NODEGROUP_SETTLE, waitUntilRolledOut, type NodegroupWatch, type SettleResult } from './nodegroup-watch.js';
import { safePoint } from './safe-point.js';
import { awaitGate, reopenGate } from './gate-step.js';
import { describeUpdateErrors, inProgressUpdate, readRecentUpdates } from './read-cluster-updates.js';

/**
 * Managed node groups of one hop, one group at a time. In place: UpdateNodegroupVersion (or, for a group pinned to
 * a custom AMI, the launch template version clusters.yaml names), recorded before it is followed at the bounded
 * poll rate; the group's nodes (new ones Ready, old ones cordoned, drained, gone) come from a watch
 * (nodegroup-watch.ts). EKS reporting the update Successful is not the end: the group is done once every one of its
 * nodes is at the target and Ready (or, after NODEGROUP_SETTLE, with a warning naming the nodes still behind). A
 * PodEvictionFailure stops at a gate naming the blocking pods and PDBs, with Force (retry with `force`) and, where
 * one exists, the safe remedy (scale the deployment, then retry). Blue/green groups are handed to
 * blue-green-nodegroup.ts.
 */
export interface NodegroupState {
  final?: 'updated' | 'unchanged' | 'skipped';
  from?: string;
  note?: string;
  attempt?: number;
  force?: boolean;
  failed?: { updateId: string; error: string; remedy: string; details: string[]; fix?: DrainRemedy };
  /** The group's size before the update: the denominator of the progress line. */
  desired?: number;
  /** EKS reported the update Successful; the step now waits for the group's nodes. */
  succeeded?: boolean;
  /** When that wait began (so a re-run keeps the same deadline). */
  settleFrom?: number;
  [key: string]: unknown;
}

export const managedNodegroupsStep: Step = async (ctx) => {
  // Groups with saved state are kept even once gone (a blue group deleted by this step still has its line).
  const saved = Object.keys(ctx.stepState()).filter((key) => key.startsWith('ng:')).map((key) => key.slice(3));
  const names = [...new Set([...(await ctx.eks.listNodegroups(ctx.data.cluster)), ...saved])].sort();
  if (names.length === 0) return { outcome: 'skipped', summary: `${ctx.data.cluster} has no managed node groups` };
  const lines: string[] = [];
  // Green groups this step created are the new home of a blue group, not groups to upgrade in their own right.
  const greens = new Set(names.map((name) => nodegroupStateOf(ctx, name).green).filter((green): green is string => typeof green === 'string'));
  for (const name of names) {
    if (greens.has(name)) continue;
    const stop = nodegroupStateOf(ctx, name).final || ctx.data.dryRun ? undefined : await safePoint(ctx, `node group ${name}`);
    if (stop) return stop;
    const strategy = nodegroupPolicyFor(ctx.clusterConfig, name).strategy;
    const result = strategy === 'blue-green' ? await upgradeBlueGreen(ctx, name, lines) : await upgradeInPlace(ctx, name, lines);
    if (result) return result;
  }
  return { outcome: ctx.data.dryRun ? 'dry-run' : 'done', summary: lines.join('; ') };
};

export function nodegroupStateOf(ctx: StepContext, name: string): NodegroupState {
  return { ...((ctx.stepState()[`ng:${name}`] ?? {}) as NodegroupState) };
}

export async function saveNodegroupState(ctx: StepContext, name: string, state: NodegroupState): Promise<void> {
  await ctx.saveStepState({ [`ng:${name}`]: state });
}

function targetRequest(ng: Nodegroup, to: string, launchTemplateVersion?: string) {
  if (ng.amiType === 'CUSTOM') {
    if (!launchTemplateVersion) return undefined;
    const done = ng.launchTemplate?.version === launchTemplateVersion;
    return { done, request: { launchTemplate: { id: ng.launchTemplate?.id, name: ng.launchTemplate?.id ? undefined : ng.launchTemplate?.name, version: launchTemplateVersion } } };
  }
  return { done: ng.version === to, request: { version: to } };
}

async function upgradeInPlace(ctx: StepContext, name: string, lines: string[]): Promise<StepResult | undefined> {
  const watch = lazyNodegroupWatch(ctx, [name]);
  try {
    return await runInPlace(ctx, name, lines, watch.get);
  } finally {
    watch.stop();
  }
}

async function runInPlace(ctx: StepContext, name: string, lines: string[], nodeWatch: () => Promise<NodegroupWatch>): Promise<StepResult | undefined> {
  const { data, step, eks } = ctx;
  const state = nodegroupStateOf(ctx, name);
  const policy = nodegroupPolicyFor(ctx.clusterConfig, name);
  const gateId = `h${step.hop}-ng-${name}`;
  const progressKey = () => `ng:${name}:${state.attempt ?? 0}`;
  const report = createRolloutReporter(ctx, nodeWatch, { group: name, key: progressKey, desired: () => state.desired ?? 0 });
  for (;;) {
    if (state.final) {
      lines.push(state.final === 'updated' ? `${name} ${state.from} → ${step.to} (in place${state.note ? `; ${state.note}` : ''})` : `${name}: ${state.note}`);
      return undefined;
    }
    if (state.failed) {
      const { failed } = state;
      const outcome = await awaitGate(ctx, {
        gateId,
        title: `Node group ${name} could not drain its nodes. Force the update, or abort?`,
        details: [failed.error, ...failed.details, `What to do: ${failed.fix ? `${failed.fix.label}, or ` : ''}Force (evicts ignoring the PDBs).`],
        actions: failed.fix ? ['remedy', 'force', 'abort'] : ['force', 'abort'],
        remedyLabel: failed.fix?.label,
      });
      if (outcome.kind === 'result') return outcome.result;
      if (outcome.action === 'remedy' && failed.fix) await applyRemedy(ctx, failed.fix);
      Object.assign(state, { failed: undefined, force: state.force || outcome.action === 'force', attempt: (state.attempt ?? 0) + 1 });
      await reopenGate(ctx, gateId);
      await saveNodegroupState(ctx, name, state);
      continue;
    }
    if (state.succeeded) {
      // EKS says the update is done; the group is done when its nodes say so too (old Node objects can linger).
      state.settleFrom ??= ctx.clock.now();
      await saveNodegroupState(ctx, name, state);
      const watch = await nodeWatch();
      const settle = await waitUntilRolledOut(ctx, watch, { group: name, key: progressKey(), deadline: state.settleFrom + NODEGROUP_SETTLE.timeoutMs, report });
      if (!settle.settled) state.note = await reportUnsettled(ctx, name, settle);
      state.final = 'updated';
      await saveNodegroupState(ctx, name, state);
      continue;
    }

    const ng = await eks.describeNodegroup(data.cluster, name);
    // A custom-AMI group with an AMI source in clusters.yaml gets its launch template version made here (issue 13).
    const customAmi = ng.amiType === 'CUSTOM' && !policy.launchTemplateVersion ? await customAmiLaunchTemplateVersion(ctx, ng, policy) : undefined;
    if (customAmi && data.dryRun) {
      lines.push(`${name}: would ${customAmi.version === '(new)' ? 'create a launch template version' : `use launch template version ${customAmi.version}`} with ${customAmi.imageId} and call UpdateNodegroupVersion with it`);
      return undefined;
    }
    const target = targetRequest(ng, step.to, policy.launchTemplateVersion ?? customAmi?.version);
    if (!target && data.dryRun) {
      lines.push(`${name}: pinned to a custom AMI (launch template ${ng.launchTemplate?.name ?? ng.launchTemplate?.id ?? '?'}); would stop at a gate asking for a ${step.to} launch template version, or Force to skip it`);
      return undefined;
    }
    if (!target) {
      const outcome = await awaitGate(ctx, {
        gateId: `${gateId}-custom-ami`,
        title: `Node group ${name} is pinned to a custom AMI. Skip it, or abort?`,
        details: [
          `${name} uses launch template ${ng.launchTemplate?.name ?? ng.launchTemplate?.id ?? '?'} version ${ng.launchTemplate?.version ?? '?'} with its own AMI; a version bump does not upgrade it.`,
          `What to do: ${amiSourceHint('nodegroups', name, step.to)} (the bot then adds the launch template version itself), or set nodegroups.${name}.launchTemplateVersion to a version you made, and start again — or Force to skip it for now.`,
        ],
        actions: ['force', 'abort'],
      });
      if (outcome.kind === 'result') return outcome.result;
      Object.assign(state, { final: 'skipped', note: `custom AMI, skipped by <@${outcome.by}>${outcome.reason ? `: ${outcome.reason}` : ''}` });
      await saveNodegroupState(ctx, name, state);
      continue;
    }
    if (target.done && !inProgressUpdate(await readRecentUpdates(eks, data.cluster, { scope: { nodegroupName: name } }))) {
      // `from` is saved before the first update is issued, so a group this job updated is recognised even when the
      // worker died between the update's end and its recording.
      if (state.from) state.succeeded = true;
      else Object.assign(state, { final: 'unchanged', note: `already at ${step.to}` });
      if (!data.dryRun) await saveNodegroupState(ctx, name, state);
      continue;
    }
    if (data.dryRun) {
      // A later hop of a dry run reads the group as the earlier hops would have left it.
      lines.push(`would call UpdateNodegroupVersion ${name} ${step.hop > 1 ? step.from : ng.version} → ${step.to} (in place)`);
      return undefined;
    }
    if (!state.from) {
      Object.assign(state, { from: ng.version, desired: ng.scalingConfig?.desiredSize ?? 0 });
      await saveNodegroupState(ctx, name, state);
    }
    const attempt = state.attempt ?? 0;
    const updateId = await issueOrAdopt(ctx, name, attempt, { ...target.request, force: state.force || policy.force });
    if (!updateId) continue;
    const watch = await nodeWatch();
    const final = await followNodegroupUpdate(ctx, watch, { updateId, group: name, label: `node-group ${name} update to ${step.to}`, report });
    if (final.status === 'Successful') {
      state.succeeded = true;
      await saveNodegroupState(ctx, name, state);
      continue;
    }
    const error = `UpdateNodegroupVersion ${name} → ${step.to} ended ${final.status} (update ${updateId}): ${describeUpdateErrors(final)}`;
    if (final.errors?.[0]?.errorCode !== 'PodEvictionFailure') throw new StepFailure(error, { remedy: remedyForUpdate(final), code: final.errors?.[0]?.errorCode });
    const nodes = watch.nodes(name).filter((node) => node.spec?.unschedulable).map((node) => node.metadata.name);
    const drain = await inspectDrain(ctx, nodes.length ? nodes : (final.errors?.[0]?.resourceIds ?? []));
    const details = drain.blockers.length ? drain.blockers.slice(0, 20).map(describeBlocker) : [`The blocking pods could not be identified${drain.error ? ` (${drain.error})` : ''}.`];
    state.failed = { updateId, error, remedy: remedyForUpdate(final), details, fix: drain.remedy };
    await saveNodegroupState(ctx, name, state);
    await ctx.emit(`ng:${name}:${updateId}:failed`, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: [error, ...details].join('\n') });
  }
}

/** The warning when a group's nodes did not all reach the target in time; returns the note for the step's line. */
export async function reportUnsettled(ctx: StepContext, group: string, settle: Extract<SettleResult, { settled: false }>): Promise<string> {
  const { laggards } = settle.counts;
  const behind = `${laggards.length} node(s) not at ${ctx.step.to} and Ready`;
  if (settle.why === 'aborted') return `${behind} when the job was aborted`;
  const waited = formatDuration(NODEGROUP_SETTLE.timeoutMs);
  await ctx.emit(`ng:${group}:unsettled`, {
    kind: 'note', at: ctx.clock.now(), level: 'warning',
    text: [
      `Node group ${group}: EKS reports it at ${ctx.step.to}, but ${waited} later ${behind}:`,
      ...laggards.slice(0, 20).map((node) => `• ${node}`),
      `What to do: look at them with \`kubectl get nodes -l eks.amazonaws.com/nodegroup=${group} -o wide\`. A Node whose instance is gone can be deleted (\`kubectl delete node <name>\`); an old instance still running needs \`aws eks update-nodegroup-version --cluster-name ${ctx.data.cluster} --nodegroup-name ${group}\` again. Verify reports these nodes.`,
    ].join('\n'),
  });
  return `${behind} after ${waited}`;
}

/** Follows an update already recorded or running for the group; otherwise issues one and records it first. */
export async function issueOrAdopt(
  ctx: StepContext,
  name: string,
  attempt: number,
  request: { version?: string; launchTemplate?: { id?: string; name?: string; version?: string }; force?: boolean },
): Promise<string | undefined> {
  const { data, step, eks } = ctx;
  const recordKey = `${name}#${attempt}`;
  const recorded = ctx.recordedUpdate(recordKey)?.updateId;
  if (recorded) return recorded;
  const running = inProgressUpdate(await readRecentUpdates(eks, data.cluster, { scope: { nodegroupName: name } }));
  if (running?.id) {
    await ctx.recordUpdate(recordKey, { updateId: running.id, operation: 'UpdateNodegroupVersion', target: `${name} ${step.to}`, at: ctx.clock.now(), adopted: true });
    return running.id;
  }
  try {
    const update = await eks.updateNodegroupVersion(data.cluster, name, { ...request, clientRequestToken: `${data.jobId}-${step.id}-${name}-${attempt}`.slice(0, 64) });
    if (!update.id) throw new StepFailure(`UpdateNodegroupVersion ${name} returned no update id`);
    await ctx.recordUpdate(recordKey, { updateId: update.id, operation: 'UpdateNodegroupVersion', target: `${name} ${step.to}`, at: ctx.clock.now(), adopted: false });
    await ctx.emit(`ng:${name}:${attempt}:issued`, {
      kind: 'progress', at: ctx.clock.now(), step: step.id,
      text: `UpdateNodegroupVersion ${name} → ${step.to}${request.force ? ' with force' : ''} issued (update ${update.id}).`,
    });
    return update.id;
  } catch (error) {
    if ((error as Error).name === 'ResourceInUseException') return undefined;
    throw error;
  }
}
