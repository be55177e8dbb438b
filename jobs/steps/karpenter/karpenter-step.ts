import type { KubePort } from '../../../src/ports/kube-port.js';
import type { JobControls } from '../../../src/ports/job-controls.js';
import { applyBudgets, pointNodeClasses, type Controls } from './apply-karpenter-changes.js';
import { heldOriginals, releaseHold } from './karpenter-budget-hold.js';
import { describeBudgets } from '../../../src/planning/workloads/disruption-budget.js';
import { describeTerms } from '../../../src/planning/deciders/decide-ami-action.js';
import { DEFAULT_FOLLOW_OPTIONS, followDrift, type FollowOptions, type FollowWatches } from './follow-drift.js';
import { createWatchCacheShelf } from '../../engine/watch-cache-shelf.js';
import { endBlockedMessage } from './blocked-nodes-message.js';
import { readKarpenterState, saveKarpenterState, type KarpenterStepState } from './karpenter-step-state.js';
import { keepPlanned, readKarpenterPlan } from './read-karpenter-plan.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import { describeVerification } from '../../../src/planning/planner/verify-pool.js';
import type { Step, StepContext, StepResult } from '../../engine/step-context.js';
import { mention } from '../../../src/report/format-text.js';
import { acts, execute, preview } from '../../engine/execute-commands.js';

/**
 * Karpenter-managed nodes of one hop (seed 000, the drift lab), for every NodePool at once:
 * 1. read the pools, classes and claims and decide (read-karpenter-plan.ts); save each pool's original budgets and
 *    old NodeClaims in job.data before anything is patched — taking over the originals of the pools the
 *    'karpenter-budget' step held since before the control plane (karpenter-budget-step.ts);
 * 2. set the upgrade budget (clusters.yaml karpenter.upgradeBudget) — or `nodes: "0"` while paused;
 * 3. point pinned EC2NodeClasses at the target AMI from SSM (classes on `<family>@latest` follow by themselves);
 * 4. follow the drift by watching, one bounded window per run (follow-drift.ts), parking the job in between;
 * 5. verify the pools' nodes and pods, put the original budgets back, and report.
 * Abort puts the original budgets back and leaves the EC2NodeClasses on the target (pointing them back would drift
 * the new nodes to the old AMI).
 */
export interface KarpenterStepOptions extends Partial<FollowOptions> {
  /** How long the job parks between two follow windows (default: the engine's poll interval). */
  resumeDelayMs?: number;
}

// How long a parked job's watches wait for its next window beyond the park itself (a slow queue, a busy worker).
const WATCH_LINGER_MARGIN_MS = 60_000;

export function createKarpenterStep(options: KarpenterStepOptions = {}): Step {
  const follow: FollowOptions = { ...DEFAULT_FOLLOW_OPTIONS, ...options };
  // One shelf per step instance (per worker): the watches of a parked job wait here for its next window.
  const shelf = createWatchCacheShelf();
  return async (ctx) => {
    const kube = await ctx.kube();
    let state = readKarpenterState(ctx);
    if (!state) {
      const reading = await readKarpenterPlan({
        kube, ssm: ctx.ssm, target: ctx.step.to, upgradeBudget: ctx.clusterConfig.karpenter.upgradeBudget,
        rollback: ctx.data.rollback ? { recorded: ctx.data.rollback.karpenter } : undefined,
      });
      if (reading.kind === 'nothing') {
        await releaseHold(ctx, new Set());
        return { outcome: 'skipped', summary: reading.summary };
      }
      const { plan } = reading;
      // Only the classes the approved plan names, needing what it said (the step's own decisions, ec2nodeclass/*).
      const act = await resourcesToAct(ctx, () => plan.decisions.filter((decision) => decision.resource.startsWith('ec2nodeclass/')));
      keepPlanned(plan, act);
      // Classes on an alias whose nodes drifted already, when the control plane moved: followed as planned.
      for (const decision of plan.decisions.filter((d) => d.action === 'follow-alias' && act.has(d.resource) && !plan.classes[d.resource.slice('ec2nodeclass/'.length)])) {
        await execute(ctx, { kind: 'record-acted', acted: { resource: decision.resource, action: 'follow-alias', to: ctx.step.to, outcome: 'done', note: 'its nodes drifted when the control plane moved' } });
      }
      // Pools the budget step held before the control plane moved carry our budget now: their originals are the
      // ones it saved.
      for (const [name, original] of heldOriginals(ctx)) if (plan.pools[name]) plan.pools[name].original = original;
      const dry = preview(ctx, [{ kind: 'drive-karpenter', changes: plan.lines, reports: plan.reports }]);
      if (dry) return dry;
      state = { startedAt: ctx.clock.now(), pools: plan.pools, classes: plan.classes, reports: plan.reports };
      // The originals are in job.data before the first patch: a crash after it still restores them, not ours.
      await saveKarpenterState(ctx, state);
    }
    // Held pools this step does not drive get their original back here; the rest are this step's from now on.
    await releaseHold(ctx, new Set(Object.keys(state.pools)));
    for (const [index, report] of state.reports.entries()) {
      await ctx.emit(`report:${index}`, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: report });
    }
    if (Object.keys(state.pools).length === 0) {
      const summary = state.reports.length ? `${state.reports.length} EC2NodeClass(es) need an AMI from the operator (see above)` : `every NodePool is already on ${ctx.step.to}`;
      return { outcome: 'done', summary };
    }
    // A permanent failure from here on is cleaned up by the processor through karpenterCleanup (budgets back).
    const resumeDelayMs = options.resumeDelayMs ?? ctx.pollIntervalMs;
    return drive(ctx, kube, state, follow, resumeDelayMs, { shelf, lingerMs: resumeDelayMs + WATCH_LINGER_MARGIN_MS });
  };
}

export const karpenterStep: Step = createKarpenterStep();

async function drive(
  ctx: StepContext, kube: KubePort, state: KarpenterStepState, follow: FollowOptions, resumeDelayMs: number, watches: FollowWatches,
): Promise<StepResult> {
  const controls = await ctx.controls();
  if (controls.abort) return abortWith(ctx, state, controls);
  await applyBudgets(ctx, state, controls);
  // Paused: the budget is now "0"; park, and the processor holds the job until Resume runs this again.
  if (controls.paused) return { outcome: 'wait', delayMs: resumeDelayMs };
  await pointNodeClasses(ctx, state);

  const window = await followDrift(ctx, kube, state, follow, watches);
  if (window.end === 'aborted') return abortWith(ctx, state, window.controls);
  if (window.end === 'paused') {
    await applyBudgets(ctx, state, window.controls);
    return { outcome: 'wait', delayMs: resumeDelayMs };
  }
  if (window.end === 'window') {
    await saveKarpenterState(ctx, state);
    // One more look: a pause that came in since the window's last tick must not wait for the next window.
    const latest = await ctx.controls();
    if (latest.abort) return abortWith(ctx, state, latest);
    if (latest.paused) await applyBudgets(ctx, state, latest);
    return { outcome: 'wait', delayMs: resumeDelayMs };
  }
  await restoreBudgets(ctx, state);
  for (const [name, nodeClass] of Object.entries(state.classes)) {
    const action = ctx.step.actions?.find((a) => a.resource === `ec2nodeclass/${name}`)?.action ?? (nodeClass.action === 'pin' ? 'pin-ami' : 'follow-alias');
    ctx.recordActed({ resource: `ec2nodeclass/${name}`, action, to: ctx.step.to, outcome: 'done' });
  }
  return { outcome: 'done', summary: summaryOf(ctx, state) };
}

async function restoreBudgets(ctx: StepContext, state: KarpenterStepState): Promise<void> {
  await applyBudgets(ctx, state, { paused: false, pauseSeq: 0 }, () => true);
}

async function abortWith(ctx: StepContext, state: KarpenterStepState, controls: JobControls): Promise<StepResult> {
  await applyBudgets(ctx, state, controls);
  let ended = false;
  for (const pool of Object.keys(state.pools)) ended = (await endBlockedMessage(ctx, state, pool, true)) || ended;
  if (ended) await saveKarpenterState(ctx, state);
  const classes = Object.entries(state.classes).filter(([, c]) => c.patched && c.action === 'pin').map(([name, c]) => `${name} on ${describeTerms(c.newTerms)}`);
  const after = classes.length ? `; EC2NodeClass ${classes.join(', ')} stays on ${ctx.step.to}, so Karpenter goes on replacing drifted nodes at the original pace` : '';
  const by = controls.abort?.by ?? 'someone';
  return { outcome: 'abort', by, reason: `${mention(by)} aborted during the Karpenter rollout; budgets restored on ${describeOriginals(state)}${after}` };
}

/** "default (nodes 10%), gpu (the default (nodes 10%))" */
function describeOriginals(state: KarpenterStepState): string {
  return Object.entries(state.pools).map(([name, pool]) => `${name} (${describeBudgets(pool.original)})`).join(', ');
}

function summaryOf(ctx: StepContext, state: KarpenterStepState): string {
  const parts = Object.entries(state.pools).map(([name, pool]) => {
    const verified = pool.verification ? describeVerification(pool.verification, ctx.step.to) : 'not verified';
    // The peak is what this step's watch saw. Replacements it never saw happen — between its plan read and its first
    // list, while the job was parked between windows, or (held by the Karpenter budget step) during the control
    // plane — leave it unobserved, and "at most 0 disrupted" would then be a false claim.
    const peak = pool.maxDisrupted
      ? `at most ${pool.maxDisrupted} node(s) disrupted at once`
      : (pool.replaced ?? 0) > 0
        ? 'replaced before this step\'s watch saw them disrupted (peak not observed)'
        : 'no node disrupted';
    return `NodeClaims replaced ${pool.replaced ?? 0}/${pool.oldClaims.length} in ${name}; ${peak}; ${verified}`;
  });
  parts.push(`budgets restored on ${describeOriginals(state)}`);
  if (state.reports.length) parts.push(`${state.reports.length} EC2NodeClass(es) left for the operator (see above)`);
  return parts.join('; ');
}

/**
 * For the processor: apply the job's controls to the NodePools when it finds the job paused (budget `nodes: "0"`
 * at once, even while the step is parked between windows) or aborted (original budgets back) at its safe point,
 * with the Karpenter step current. Idempotent; does nothing before the step has saved its plan or after it restored.
 */
export async function karpenterControlHook(ctx: StepContext, controls: Controls): Promise<void> {
  const state = readKarpenterState(ctx);
  if (!state || !acts(ctx) || Object.keys(state.pools).length === 0) return;
  await applyBudgets(ctx, state, controls);
}

/**
 * For the processor (step-registry CLEANUPS): the job is aborted at its safe point or has failed while this step
 * is current — put every NodePool's original budget back. The EC2NodeClasses stay on the target AMI.
 */
export async function karpenterCleanup(ctx: StepContext): Promise<void> {
  const state = readKarpenterState(ctx);
  if (!state || !acts(ctx) || Object.keys(state.pools).length === 0) return;
  await restoreBudgets(ctx, state);
}
