import type { Nodegroup } from '@aws-sdk/client-eks';
import { nodegroupPolicyFor } from '../../../src/config/clusters-config.js';
import { decideNodegroupAction, NEW_LAUNCH_TEMPLATE_VERSION, type NodegroupDecision, type NodegroupFacts } from '../../../src/planning/deciders/decide-nodegroup-action.js';
import { describeBlocker } from '../../../src/planning/workloads/find-drain-blockers.js';
import { StepFailure, type Step, type StepContext, type StepResult } from '../../engine/step-context.js';
import { remedyForUpdate } from '../../../src/planning/update-error-remedies.js';
import { upgradeBlueGreen } from './blue-green-nodegroup.js';
import { findCustomAmiVersion } from './custom-ami-version.js';
import { inspectDrain } from '../../engine/drain-inspection.js';
import { amiSourceHint } from '../../../src/planning/deciders/ami-source.js';
import { nodegroupStateOf, reportUnsettled, saveNodegroupState } from './nodegroup-state.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import { createRolloutReporter, followNodegroupUpdate, lazyNodegroupWatch, NODEGROUP_SETTLE, waitUntilRolledOut, type NodegroupWatch } from './nodegroup-watch.js';
import { askPlannedGates } from '../../engine/planned-gates.js';
import { describeUpdateErrors, inProgressUpdate, readRecentUpdates } from '../../engine/read-cluster-updates.js';
import { requestToken } from '../../engine/request-token.js';
import type { AdoptUpdateCommand, AskGateCommand, UpdateNodegroupVersionCommand } from '../../engine/commands.js';
import { completed, describeInstead, execute, readsEarlierHopsAsDone, halted } from '../../engine/execute-commands.js';

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
export const managedNodegroupsStep: Step = async (ctx) => {
  // Groups with saved state are kept even once gone (a blue group deleted by this step still has its line).
  const saved = Object.keys(ctx.stepState()).filter((key) => key.startsWith('ng:')).map((key) => key.slice(3));
  const listed = await ctx.eks.listNodegroups(ctx.data.cluster);
  const all = [...new Set([...listed, ...saved])].sort();
  if (all.length === 0) return { outcome: 'skipped', summary: `${ctx.data.cluster} has no managed node groups` };
  // Green groups this step created are the new home of a blue group, not groups to upgrade in their own right.
  const greens = new Set(all.map((name) => nodegroupStateOf(ctx, name).green).filter((green): green is string => typeof green === 'string'));
  // Read, then decide with the planner's decider: what each group needs now, against the approved plan.
  const decisions = new Map<string, NodegroupDecision>();
  for (const name of listed.filter((group) => !greens.has(group))) {
    const ng = await ctx.eks.describeNodegroup(ctx.data.cluster, name);
    const policy = nodegroupPolicyFor(ctx.clusterConfig, name);
    decisions.set(name, decideNodegroupAction(factsOf(ng), policy, ctx.step.to, (await findCustomAmiVersion(ctx, ng, policy))?.version));
  }
  const act = await resourcesToAct(ctx, () => [...decisions].map(([name, decision]) => ({ resource: `nodegroup/${name}`, action: decision.action, reason: decision.reason })));
  const names = all.filter((name) => !greens.has(name) && (!ctx.step.actions || act.has(`nodegroup/${name}`) || saved.includes(name)));
  if (names.length === 0) return { outcome: 'skipped', summary: 'no managed node group needs an update (see the note above for what changed since the plan)' };
  const lines: string[] = [];
  for (const name of names) {
    const state = nodegroupStateOf(ctx, name);
    const stop = state.final ? undefined : await execute(ctx, { kind: 'safe-point', before: `node group ${name}` });
    if (stop?.kind === 'stop') return stop.result;
    const blueGreen = state.green !== undefined || decisions.get(name)?.action === 'blue-green';
    // The plan's question for this group, asked just before it moves (a blue/green group asks once its clone is Ready).
    const asked = blueGreen || state.final ? undefined : await askPlannedGates(ctx, (action) => action.resource !== `nodegroup/${name}`);
    if (asked) return asked;
    const result = blueGreen ? await upgradeBlueGreen(ctx, name, lines) : await upgradeInPlace(ctx, name, lines);
    if (result) return result;
  }
  return completed(ctx, lines.join('; '));
};

/** DescribeNodegroup's answer, as the node-group decider reads it. */
export function factsOf(ng: Nodegroup): NodegroupFacts {
  return { name: ng.nodegroupName ?? '', version: ng.version, amiType: ng.amiType, releaseVersion: ng.releaseVersion, launchTemplate: ng.launchTemplate };
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
      const outcome = await execute(ctx, {
        kind: 'ask-gate',
        gate: {
          gateId,
          title: `Node group ${name} could not drain its nodes. Force the update, or abort?`,
          details: [failed.error, ...failed.details, `What to do: ${failed.fix ? `${failed.fix.label}, or ` : ''}Force (evicts ignoring the PDBs).`],
          actions: failed.fix ? ['remedy', 'force', 'abort'] : ['force', 'abort'],
          remedyLabel: failed.fix?.label,
        },
      });
      if (outcome.kind !== 'answered') return halted(outcome);
      if (outcome.action === 'remedy' && failed.fix) await execute(ctx, { kind: 'scale-for-drain', remedy: failed.fix });
      Object.assign(state, { failed: undefined, force: state.force || outcome.action === 'force', attempt: (state.attempt ?? 0) + 1 });
      await execute(ctx, { kind: 'reopen-gate', gateId });
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
      ctx.recordActed({ resource: `nodegroup/${name}`, action: state.lt ? 'roll-launch-template' : 'update-in-place', to: step.to, outcome: 'done' });
      await saveNodegroupState(ctx, name, state);
      continue;
    }

    const ng = await eks.describeNodegroup(data.cluster, name);
    // A custom-AMI group with an AMI source in clusters.yaml rolls to a launch template version with the target AMI:
    // the one that already carries it, or one made here once the group is to be acted on (issue 13).
    const customAmi = await findCustomAmiVersion(ctx, ng, policy);
    const decision = decideNodegroupAction(factsOf(ng), policy, step.to, customAmi?.version);
    const roll = customAmi && decision.action === 'roll-launch-template' ? describeInstead(ctx, { kind: 'roll-launch-template', nodegroup: name, version: customAmi.version, imageId: customAmi.imageId }) : undefined;
    if (roll) {
      lines.push(roll);
      return undefined;
    }
    if (decision.action === 'custom-ami-gate') {
      const template = ng.launchTemplate?.name ?? ng.launchTemplate?.id ?? '?';
      const ask: AskGateCommand = {
        kind: 'ask-gate',
        gate: {
          gateId: `${gateId}-custom-ami`,
          title: `Node group ${name} is pinned to a custom AMI. Skip it, or abort?`,
          details: [
            `${name} uses launch template ${template} version ${ng.launchTemplate?.version ?? '?'} with its own AMI; a version bump does not upgrade it.`,
            `What to do: ${amiSourceHint('nodegroups', name, step.to)} (the bot then adds the launch template version itself), or set nodegroups.${name}.launchTemplateVersion to a version you made, and start again — or Force to skip it for now.`,
          ],
          actions: ['force', 'abort'],
        },
        said: `${name}: pinned to a custom AMI (launch template ${template}); would stop at a gate asking for a ${step.to} launch template version, or Force to skip it`,
        skip: { resource: `nodegroup/${name}`, action: 'custom-ami-gate', stateKey: `ng:${name}`, state, why: 'custom AMI' },
      };
      const asked = await execute(ctx, ask);
      if (asked.kind === 'described') {
        lines.push(asked.text);
        return undefined;
      }
      if (asked.kind === 'stop') return asked.result;
      Object.assign(state, { final: 'skipped', note: asked.skipped });
      continue;
    }
    if (decision.action === 'blue-green') {
      throw new StepFailure(`Node group ${name} reads as blue/green now, but this step began updating it in place`, { remedy: 'let the in-place update finish (or abort), then start the upgrade again' });
    }
    if (decision.action === 'at-target' && !inProgressUpdate(await readRecentUpdates(eks, data.cluster, { scope: { nodegroupName: name } }))) {
      // `from` is saved before the first update is issued, so a group this job updated is recognised even when the
      // worker died between the update's end and its recording.
      if (state.from) state.succeeded = true;
      else Object.assign(state, { final: 'unchanged', note: `already at ${step.to}` });
      await execute(ctx, { kind: 'save-state', patch: { [`ng:${name}`]: state } });
      continue;
    }
    const attempt = state.attempt ?? 0;
    const update: UpdateNodegroupVersionCommand = {
      kind: 'update-nodegroup-version', cluster: data.cluster, nodegroup: name,
      // A later hop of a dry run reads the group as the earlier hops would have left it.
      from: readsEarlierHopsAsDone(ctx) ? step.from : ng.version,
      to: step.to,
      request: decision.action === 'at-target' ? { version: step.to } : decision.request,
      force: state.force || policy.force,
      token: requestToken(data.jobId, step.id, name, attempt),
      record: `${name}#${attempt}`,
      event: `ng:${name}:${attempt}:issued`,
    };
    const dry = describeInstead(ctx, update);
    if (dry) {
      lines.push(dry);
      return undefined;
    }
    if (!state.from) {
      Object.assign(state, { from: ng.version, desired: ng.scalingConfig?.desiredSize ?? 0, lt: decision.action === 'roll-launch-template' || undefined });
      await saveNodegroupState(ctx, name, state);
    }
    if (decision.action === 'roll-launch-template' && decision.request.launchTemplate.version === NEW_LAUNCH_TEMPLATE_VERSION) {
      // Crash-safe: a re-run finds the version this made (it carries the target AMI) and rolls to it instead.
      const lt = ng.launchTemplate!;
      const created = await execute(ctx, {
        kind: 'create-launch-template-version', group: name, launchTemplateId: lt.id!, template: lt.name ?? lt.id!, sourceVersion: lt.version ?? '$Default',
        imageId: customAmi!.imageId, source: customAmi!.label, description: `eks-upgrade-bot ${data.jobId}: ${step.to}`, event: `ng:${name}:lt-version:{version}`,
      });
      if (created.kind !== 'version') continue;
      update.request = { launchTemplate: { ...decision.request.launchTemplate, version: String(created.version) } };
    }
    const started = await execute(ctx, await followOrIssue(ctx, update));
    if (started.kind !== 'update') continue;
    const updateId = started.updateId;
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

/** Follows an update already recorded or running for the group; otherwise the update is issued (recorded first). */
async function followOrIssue(ctx: StepContext, update: UpdateNodegroupVersionCommand): Promise<AdoptUpdateCommand | UpdateNodegroupVersionCommand> {
  const adopt = (updateId: string, ours: boolean): AdoptUpdateCommand => ({ kind: 'adopt-update', updateId, operation: 'UpdateNodegroupVersion', target: `${update.nodegroup} ${update.to}`, record: update.record, ours });
  const recorded = ctx.recordedUpdate(update.record)?.updateId;
  if (recorded) return adopt(recorded, true);
  const running = inProgressUpdate(await readRecentUpdates(ctx.eks, ctx.data.cluster, { scope: { nodegroupName: update.nodegroup } }));
  return running?.id ? adopt(running.id, false) : update;
}
