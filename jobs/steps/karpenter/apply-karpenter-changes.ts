import type { JobControls } from '../../../src/ports/job-controls.js';
import type { StepContext } from '../../engine/step-context.js';
import { budgetToApply, describeBudgets } from '../../../src/planning/workloads/disruption-budget.js';
import { describeTerms } from '../../../src/planning/deciders/decide-ami-action.js';
import { execute } from '../../engine/execute-commands.js';
import { saveKarpenterState, type KarpenterStepState } from './karpenter-step-state.js';

/**
 * The Karpenter step's only changes: NodePool budgets and EC2NodeClass amiSelectorTerms, decided here and carried
 * out by the executor (set-nodepool-budgets, point-node-class: read first, merge-patched only when they differ).
 * Progress is recorded before the call whose repetition would be wrong (restoring), so a re-run after a crash lands
 * on the same result.
 */
export type Controls = Pick<JobControls, 'paused' | 'abort' | 'pauseSeq'>;

export async function applyBudgets(
  ctx: StepContext,
  state: KarpenterStepState,
  controls: Controls,
  finished: (pool: string) => boolean = () => false,
): Promise<void> {
  const changes: Array<{ pool: string; kind: 'upgrade' | 'paused' | 'original'; from: string; to: string }> = [];
  for (const [name, pool] of Object.entries(state.pools).sort(([a], [b]) => a.localeCompare(b))) {
    const decision = budgetToApply({ controls, record: pool, upgradeBudget: ctx.clusterConfig.karpenter.upgradeBudget, finished: finished(name) });
    if (decision.kind === 'leave') continue;
    if (decision.kind === 'original' && !pool.restoring) {
      pool.restoring = true;
      await saveKarpenterState(ctx, state);
    }
    const set = await execute(ctx, { kind: 'set-nodepool-budgets', pool: name, budgets: decision.budgets });
    if (set.kind === 'set') changes.push({ pool: name, kind: decision.kind, from: set.from, to: describeBudgets(decision.budgets) });
    if (decision.kind === 'original') {
      // Also when the NodePool is gone: there is nothing left to restore.
      Object.assign(pool, { restoring: false, restored: true });
      await saveKarpenterState(ctx, state);
    }
  }
  for (const kind of ['upgrade', 'paused', 'original'] as const) {
    const of = changes.filter((change) => change.kind === kind);
    if (of.length > 0) await ctx.emit(budgetKey(kind, controls.pauseSeq), { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: budgetText(kind, of, controls.pauseSeq) });
  }
}

function budgetKey(kind: 'upgrade' | 'paused' | 'original', pauseSeq: number): string {
  if (kind === 'original') return 'budget:restored';
  if (kind === 'paused') return `drift:paused:${pauseSeq}`;
  return pauseSeq > 0 ? `drift:resumed:${pauseSeq}` : 'budget:upgrade';
}

function budgetText(kind: 'upgrade' | 'paused' | 'original', changes: Array<{ pool: string; from: string; to: string }>, pauseSeq: number): string {
  const list = (pick: (c: { pool: string; from: string; to: string }) => string) => changes.map(pick).join('; ');
  switch (kind) {
    case 'upgrade':
      return pauseSeq > 0
        ? `Resumed: disruption budget back to the upgrade's (${list((c) => `NodePool ${c.pool} ${c.to}`)}); Karpenter carries on replacing drifted nodes.`
        : `Disruption budget for the upgrade: ${list((c) => `NodePool ${c.pool} ${c.from} → ${c.to}`)} (put back at the end).`;
    case 'paused':
      return `Paused: ${list((c) => `NodePool ${c.pool}`)} set to ${changes[0].to}; Karpenter starts no new replacement (one already under way finishes).`;
    case 'original':
      return `Original disruption budgets restored: ${list((c) => `NodePool ${c.pool} ${c.to}`)}.`;
  }
}

/** Points each pinned EC2NodeClass at the target images (once; a class already there is only marked done). */
export async function pointNodeClasses(ctx: StepContext, state: KarpenterStepState): Promise<void> {
  for (const [name, nodeClass] of Object.entries(state.classes).sort(([a], [b]) => a.localeCompare(b))) {
    if (nodeClass.action !== 'pin' || nodeClass.patched || !nodeClass.newTerms) continue;
    await execute(ctx, { kind: 'point-node-class', nodeClass: name, terms: nodeClass.newTerms });
    const ids = nodeClass.newTerms.map((term) => (Object.keys(term).length === 1 && typeof term.id === 'string' ? term.id : undefined));
    const onlyIds = ids.every((id) => id !== undefined);
    const terms = onlyIds ? ids.join(', ') : describeTerms(nodeClass.newTerms);
    nodeClass.patched = true;
    await saveKarpenterState(ctx, state);
    const source =
      nodeClass.source?.kind === 'recorded'
        ? `back to what upgrade job ${nodeClass.source.jobId} recorded before it changed them`
        : nodeClass.restoreAfterControlPlane
          ? `${nodeClass.family} ${ctx.step.to} from SSM, until the control plane is back at ${ctx.step.to}; then ${describeTerms(nodeClass.restoreAfterControlPlane)} again`
          : `${nodeClass.family} ${ctx.step.to} from SSM`;
    await ctx.emit(`class:${name}:${onlyIds ? ids.join(',') : terms}`, {
      kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
      text: `EC2NodeClass ${name}: amiSelectorTerms → ${terms} (${source}); Karpenter marks its nodes drifted (AMIDrift) and replaces them within the budget.`,
    });
  }
}
