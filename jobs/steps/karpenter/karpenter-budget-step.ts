import { applyBudgets } from './apply-karpenter-changes.js';
import type { BudgetHoldState } from './karpenter-budget-hold.js';
import { describeBudgets } from '../../../src/planning/workloads/disruption-budget.js';
import { readKarpenterState, saveKarpenterState } from './karpenter-step-state.js';
import { readKarpenterPlan } from './read-karpenter-plan.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import type { Step } from '../../engine/step-context.js';
import { mention } from '../../../src/report/format-text.js';
import { preview } from '../../engine/execute-commands.js';

/**
 * Before the control plane of a hop moves: the NodePools whose EC2NodeClass follows the cluster version (an
 * `al2023@latest` alias) start drifting the moment it does, so they get the upgrade budget (clusters.yaml
 * karpenter.upgradeBudget) now rather than in the Karpenter step. Pinned classes move only when the Karpenter step
 * points them at the target AMI, so their pools are left to it. The originals are saved first; the hold lives in
 * this step's state until the hop's Karpenter step adopts it (jobs/steps/karpenter/karpenter-budget-hold.ts), and the
 * registry restores it on abort or failure and applies Pause/Resume to it whatever step is current.
 */
export const karpenterBudgetStep: Step = async (ctx) => {
  const { step } = ctx;
  if (!ctx.data.steps.some((planned) => planned.kind === 'karpenter' && planned.hop === step.hop)) {
    return { outcome: 'skipped', summary: 'this job has no Karpenter step to hand the budget over to' };
  }
  const kube = await ctx.kube();
  let state: BudgetHoldState | undefined = readKarpenterState(ctx);
  if (!state) {
    const upgradeBudget = ctx.clusterConfig.karpenter.upgradeBudget;
    const reading = await readKarpenterPlan({ kube, ssm: ctx.ssm, target: step.to, upgradeBudget });
    if (reading.kind === 'nothing') return { outcome: 'skipped', summary: reading.summary };
    const { plan } = reading;
    const following = new Set(Object.entries(plan.classes).filter(([, c]) => c.action === 'follows-version').map(([name]) => name));
    // Only the pools the approved plan holds (nodepool/*), as they read now.
    const act = await resourcesToAct(ctx, () => plan.decisions.filter((decision) => decision.resource.startsWith('nodepool/')));
    const pools = Object.fromEntries(Object.entries(plan.pools).filter(([name, pool]) => following.has(pool.nodeClass) && act.has(`nodepool/${name}`)));
    if (Object.keys(pools).length === 0) {
      return { outcome: 'skipped', summary: 'no NodePool with nodes to replace follows the cluster version; pinned EC2NodeClasses change only in the Karpenter step' };
    }
    const dry = preview(ctx, [{ kind: 'hold-budgets', pools: Object.entries(pools).map(([name, pool]) => `NodePool ${name} ${describeBudgets(pool.original)} → nodes ${upgradeBudget}`) }]);
    if (dry) return dry;
    state = { startedAt: ctx.clock.now(), pools, classes: {}, reports: [] };
    // The originals are in job.data before the first patch: a crash after it still restores them, not ours.
    for (const name of Object.keys(pools)) ctx.recordActed({ resource: `nodepool/${name}`, action: 'hold-budget', to: ctx.clusterConfig.karpenter.upgradeBudget, outcome: 'done' });
    await saveKarpenterState(ctx, state);
  }
  const controls = await ctx.controls();
  await applyBudgets(ctx, state, controls);
  const names = Object.keys(state.pools).sort();
  if (controls.abort) {
    const by = controls.abort.by;
    return { outcome: 'abort', by, reason: `${mention(by)} aborted before the control plane moved; budgets restored on ${names.join(', ')}` };
  }
  const held = controls.paused ? 'nodes 0 while paused' : `nodes ${ctx.clusterConfig.karpenter.upgradeBudget}`;
  return {
    outcome: 'done',
    summary: `NodePool ${names.join(', ')} at ${held} before the control plane moves (EC2NodeClass follows the cluster version); the Karpenter step puts the original back`,
  };
};
