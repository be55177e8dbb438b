import type { AddonInfo } from '@aws-sdk/client-eks';
import { addonOrder, planAddonRollback, planAddonUpdate } from '../../../src/planning/deciders/plan-addon-update.js';
import type { WorldDecision } from '../../../src/planning/plan-vs-world.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import type { Step, StepContext, StepResult } from '../../engine/step-context.js';
import { remedyForUpdate } from '../../../src/planning/update-error-remedies.js';
import { followUpdate } from '../../engine/follow-update.js';
import { describeUpdateErrors, inProgressUpdate, readRecentUpdates } from '../../engine/read-cluster-updates.js';
import { mention } from '../../../src/report/format-text.js';
import { requestToken } from '../../engine/request-token.js';
import type { AdoptUpdateCommand, UpdateAddonCommand } from '../../engine/commands.js';
import { completed, execute, halted } from '../../engine/execute-commands.js';

/**
 * Add-ons of one hop: every installed EKS add-on to the target minor's default version, one at a time (VPC CNI one
 * minor per update), with resolveConflicts from clusters.yaml (PRESERVE by default). Per add-on the step reads the
 * add-on and its updates before acting, records each UpdateAddon before following it, and keeps the add-on's
 * outcome in job.data, so a re-run neither repeats an update nor re-decides a Force. A failed update stops at a
 * gate: Force (leave it and carry on), Abort, or — for a configuration conflict — retry with OVERWRITE.
 */
interface AddonState {
  final?: 'updated' | 'unchanged' | 'forced';
  from?: string;
  to?: string;
  note?: string;
  attempt?: number;
  overwrite?: boolean;
  failed?: { updateId: string; error: string; remedy: string; code?: string; version: string };
}

export const addonsStep: Step = async (ctx) => {
  const { data, eks } = ctx;
  const installed = (await eks.listAddons(data.cluster)).sort(addonOrder);
  // Without planned actions (a schema 1 job) every installed add-on is looked at, as before plans were stored.
  // What EKS offers for the target does not change while the step runs: read it once per add-on and run.
  const catalogs = new Map<string, Promise<AddonInfo[]>>();
  const catalog = (name: string) => catalogs.get(name) ?? catalogs.set(name, ctx.eks.describeAddonVersions(name, ctx.step.to)).get(name)!;
  const act = ctx.step.actions ? await resourcesToAct(ctx, () => Promise.all(installed.map((name) => decideFromWorld(ctx, name, catalog)))) : undefined;
  // Add-ons this step already worked on stay in the list even once they read as done.
  const names = act ? installed.filter((name) => act.has(`addon/${name}`) || ctx.stepState()[`addon:${name}`]) : installed;
  const lines: string[] = [];
  for (const name of names) {
    const final = (ctx.stepState()[`addon:${name}`] as AddonState | undefined)?.final;
    const stop = final ? undefined : await execute(ctx, { kind: 'safe-point', before: `add-on ${name}` });
    if (stop?.kind === 'stop') return stop.result;
    const result = await upgradeAddon(ctx, name, lines, catalog);
    if (result) return result;
  }
  if (installed.length === 0) return { outcome: 'skipped', summary: `${data.cluster} has no EKS-managed add-ons` };
  if (names.length === 0) return { outcome: 'skipped', summary: 'no add-on needs an update (see the note above for what changed since the plan)' };
  return completed(ctx, lines.join('; '));
};

/** The add-on decider over the add-on as it is now (the planner runs the same one over the snapshot). */
async function decideFromWorld(ctx: StepContext, name: string, catalog: Catalog): Promise<WorldDecision> {
  const addon = await ctx.eks.describeAddon(ctx.data.cluster, name);
  const decision = decideFor(ctx)(name, addon.addonVersion ?? 'unknown', ctx.step.to, await catalog(name));
  return { resource: `addon/${name}`, action: decision.next ? 'update-addon' : 'at-target', reason: decision.reason };
}

/** An upgrade moves every add-on to the target's default; a rollback only those the older minor does not support. */
function decideFor(ctx: StepContext): typeof planAddonUpdate {
  return ctx.data.rollback ? planAddonRollback : planAddonUpdate;
}

/** Saved under `addon:<name>` (the key jobs of the current schema resume from); a dry run saves nothing. */
async function save(ctx: StepContext, name: string, state: AddonState): Promise<void> {
  await execute(ctx, { kind: 'save-state', patch: { [`addon:${name}`]: state } });
}

type Catalog = (name: string) => Promise<AddonInfo[]>;

async function upgradeAddon(ctx: StepContext, name: string, lines: string[], catalog: Catalog): Promise<StepResult | undefined> {
  const { data, step, eks } = ctx;
  const state: AddonState = { ...((ctx.stepState()[`addon:${name}`] ?? {}) as AddonState) };
  const gateId = `h${step.hop}-addon-${name}`;
  for (;;) {
    if (state.final) {
      lines.push(describeOutcome(name, state));
      return undefined;
    }
    if (state.failed) {
      const failed = state.failed;
      const conflict = failed.code === 'ConfigurationConflict';
      const outcome = await execute(ctx, {
        kind: 'ask-gate',
        gate: {
          gateId,
          title: `Updating add-on ${name} to ${failed.version} failed. Force past it, or abort?`,
          details: [failed.error, `What to do: ${failed.remedy}.`, `Force leaves ${name} as it is and carries on with the upgrade.`],
          actions: conflict ? ['remedy', 'force', 'abort'] : ['force', 'abort'],
          remedyLabel: conflict ? `Retry ${name} with resolveConflicts OVERWRITE` : undefined,
        },
      });
      if (outcome.kind !== 'answered') return halted(outcome);
      if (outcome.action === 'remedy') {
        Object.assign(state, { failed: undefined, overwrite: true, attempt: (state.attempt ?? 0) + 1 });
        await execute(ctx, { kind: 'reopen-gate', gateId });
      } else {
        Object.assign(state, { final: 'forced', note: `forced past by ${mention(outcome.by)}${outcome.reason ? `: ${outcome.reason}` : ''}` });
        ctx.recordActed({ resource: `addon/${name}`, action: 'update-addon', to: failed.version, outcome: 'skipped', note: state.note });
      }
      await save(ctx, name, state);
      continue;
    }

    const addon = await eks.describeAddon(data.cluster, name);
    const current = addon.addonVersion ?? 'unknown';
    const plan = decideFor(ctx)(name, current, step.to, await catalog(name));
    if (!plan.next) {
      Object.assign(state, { final: state.from ? 'updated' : 'unchanged', note: plan.reason });
      await save(ctx, name, state);
      lines.push(describeOutcome(name, state));
      return undefined;
    }

    const recordKey = `${name}@${plan.next}#${state.attempt ?? 0}`;
    const started = await execute(ctx, await updateCommand(ctx, { name, current, next: plan.next, goal: plan.goal, state, recordKey }));
    if (started.kind === 'described') {
      lines.push(started.text);
      return undefined;
    }
    if (started.kind === 'retry') continue;
    const updateId = started.updateId;
    const final = await followUpdate(ctx, { cluster: data.cluster, updateId, scope: { addonName: name }, label: `add-on ${name} update to ${plan.next}` });
    if (final.status === 'Successful') {
      Object.assign(state, { from: state.from ?? current, to: plan.next });
      ctx.recordActed({ resource: `addon/${name}`, action: 'update-addon', to: plan.next, outcome: 'done' });
      await save(ctx, name, state);
      continue;
    }
    const error = `UpdateAddon ${name} → ${plan.next} ended ${final.status} (update ${updateId}): ${describeUpdateErrors(final)}`;
    state.failed = { updateId, error, remedy: remedyForUpdate(final), code: final.errors?.[0]?.errorCode, version: plan.next };
    await save(ctx, name, state);
    await ctx.emit(`addon:${name}:${updateId}:failed`, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: `${error}. ${state.failed.remedy}.` });
  }
}

/**
 * What to do about one add-on update: follow the one this job recorded, adopt one already running on the add-on
 * (EKS refuses a second), or issue UpdateAddon with a token per attempt (a Remedy's retry is a new request).
 */
async function updateCommand(
  ctx: StepContext,
  about: { name: string; current: string; next: string; goal?: string; state: AddonState; recordKey: string },
): Promise<AdoptUpdateCommand | UpdateAddonCommand> {
  const { data, step } = ctx;
  const { name, next, recordKey } = about;
  const adopt = (updateId: string, ours: boolean): AdoptUpdateCommand => ({ kind: 'adopt-update', updateId, operation: 'UpdateAddon', target: `${name} ${next}`, record: recordKey, ours });
  const recorded = ctx.recordedUpdate(recordKey)?.updateId;
  if (recorded) return adopt(recorded, true);
  const running = inProgressUpdate(await readRecentUpdates(ctx.eks, data.cluster, { scope: { addonName: name } }));
  if (running?.id) return adopt(running.id, false);
  return {
    kind: 'update-addon', cluster: data.cluster, addon: name, from: about.current, to: next, goal: about.goal,
    resolveConflicts: about.state.overwrite ? 'OVERWRITE' : ctx.clusterConfig.addons.resolveConflicts,
    token: requestToken(data.jobId, step.id, name, about.state.attempt ?? 0),
    record: recordKey, event: `addon:${name}:${next}:issued`,
  };
}

function describeOutcome(name: string, state: AddonState): string {
  if (state.final === 'forced') return `${name} left at ${state.to ?? state.from ?? 'its version'} (${state.note})`;
  if (state.from && state.to) return `${name} ${state.from} → ${state.to}`;
  return `${name}: ${state.note ?? 'unchanged'}`;
}
