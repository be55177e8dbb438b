import type { AddonInfo } from '@aws-sdk/client-eks';
import { addonOrder, planAddonRollback, planAddonUpdate } from '../src/planning/plan-addon-update.js';
import type { WorldDecision } from '../src/planning/plan-vs-world.js';
import { resourcesToAct } from './plan-check.js';
import type { Step, StepContext, StepResult } from './step-context.js';
import { remedyForUpdate } from '../src/planning/update-error-remedies.js';
import { awaitGate, reopenGate } from './gate-step.js';
import { followUpdate } from './follow-update.js';
import { safePoint } from './safe-point.js';
import { describeUpdateErrors, inProgressUpdate, readRecentUpdates } from './read-cluster-updates.js';
import { mention } from '../src/report/format-text.js';
import { requestToken } from './request-token.js';
import { adoptUpdateInFlight, isResourceInUse } from './update-in-flight.js';

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
    const stop = final || data.dryRun ? undefined : await safePoint(ctx, `add-on ${name}`);
    if (stop) return stop;
    const result = await upgradeAddon(ctx, name, lines, catalog);
    if (result) return result;
  }
  if (installed.length === 0) return { outcome: 'skipped', summary: `${data.cluster} has no EKS-managed add-ons` };
  if (names.length === 0) return { outcome: 'skipped', summary: 'no add-on needs an update (see the note above for what changed since the plan)' };
  return { outcome: data.dryRun ? 'dry-run' : 'done', summary: lines.join('; ') };
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

async function save(ctx: StepContext, name: string, state: AddonState): Promise<void> {
  await ctx.saveStepState({ [`addon:${name}`]: state });
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
      const outcome = await awaitGate(ctx, {
        gateId,
        title: `Updating add-on ${name} to ${failed.version} failed. Force past it, or abort?`,
        details: [failed.error, `What to do: ${failed.remedy}.`, `Force leaves ${name} as it is and carries on with the upgrade.`],
        actions: conflict ? ['remedy', 'force', 'abort'] : ['force', 'abort'],
        remedyLabel: conflict ? `Retry ${name} with resolveConflicts OVERWRITE` : undefined,
      });
      if (outcome.kind === 'result') return outcome.result;
      if (outcome.action === 'remedy') {
        Object.assign(state, { failed: undefined, overwrite: true, attempt: (state.attempt ?? 0) + 1 });
        await reopenGate(ctx, gateId);
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
      if (!data.dryRun) await save(ctx, name, state);
      lines.push(describeOutcome(name, state));
      return undefined;
    }
    if (data.dryRun) {
      lines.push(`would call UpdateAddon ${name} ${current} → ${plan.next}${plan.goal !== plan.next ? ` (then on to ${plan.goal})` : ''}`);
      return undefined;
    }

    const recordKey = `${name}@${plan.next}#${state.attempt ?? 0}`;
    let updateId = ctx.recordedUpdate(recordKey)?.updateId;
    if (!updateId) {
      const running = inProgressUpdate(await readRecentUpdates(eks, data.cluster, { scope: { addonName: name } }));
      if (running?.id) {
        updateId = running.id;
        await ctx.recordUpdate(recordKey, { updateId, operation: 'UpdateAddon', target: `${name} ${plan.next}`, at: ctx.clock.now(), adopted: true });
      } else {
        updateId = await issue(ctx, name, plan.next, state, recordKey);
        if (!updateId) continue;
        await ctx.emit(`addon:${name}:${plan.next}:issued`, {
          kind: 'progress', at: ctx.clock.now(), step: step.id, text: `UpdateAddon ${name} ${current} → ${plan.next} issued (update ${updateId}).`,
        });
      }
    }
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

async function issue(ctx: StepContext, name: string, version: string, state: AddonState, recordKey: string): Promise<string | undefined> {
  const { data, step } = ctx;
  try {
    const update = await ctx.eks.updateAddon(data.cluster, name, {
      addonVersion: version,
      resolveConflicts: state.overwrite ? 'OVERWRITE' : ctx.clusterConfig.addons.resolveConflicts,
      clientRequestToken: requestToken(data.jobId, step.id, name, state.attempt ?? 0),
    });
    if (!update.id) throw new Error(`UpdateAddon ${name} → ${version} returned no update id`);
    await ctx.recordUpdate(recordKey, { updateId: update.id, operation: 'UpdateAddon', target: `${name} ${version}`, at: ctx.clock.now(), adopted: false });
    return update.id;
  } catch (error) {
    // An update of this add-on started between our read and the call (our own, whose answer was lost): follow it.
    if (isResourceInUse(error)) return adoptUpdateInFlight(ctx, { addonName: name }, 'AddonUpdate', { key: recordKey, operation: 'UpdateAddon', target: `${name} ${version}` });
    throw error;
  }
}

function describeOutcome(name: string, state: AddonState): string {
  if (state.final === 'forced') return `${name} left at ${state.to ?? state.from ?? 'its version'} (${state.note})`;
  if (state.from && state.to) return `${name} ${state.from} → ${state.to}`;
  return `${name}: ${state.note ?? 'unchanged'}`;
}
