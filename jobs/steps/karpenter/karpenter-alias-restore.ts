import { describeTerms } from '../../../src/planning/deciders/decide-ami-action.js';
import type { ClassPlan } from './karpenter-step-state.js';
import type { Step } from '../../engine/step-context.js';
import { acts, execute } from '../../engine/execute-commands.js';

/**
 * Rollback (issue 10), right after the control plane is back at N-1: the EC2NodeClasses that followed an alias
 * (`al2023@latest`) were pinned to the alias's N-1 images by the rollback's Karpenter step, so that their nodes were
 * back at N-1 before the control plane moved (kubelets may never be newer than the API server). Now the alias goes
 * back on: it resolves to those same N-1 images, so nothing drifts, and the class follows the cluster version again.
 * Idempotent (the executor reads each class and patches only when it differs); the control-plane step's state records which
 * classes are done, so a re-run after a crash patches nothing twice.
 */
export function withAliasRestore(step: Step): Step {
  return async (ctx) => {
    const result = await step(ctx);
    if (result.outcome !== 'done' || !ctx.data.rollback || !acts(ctx)) return result;
    const pending: Array<[string, Array<Record<string, unknown>>]> = [];
    for (const planned of ctx.data.steps.filter((s) => s.kind === 'karpenter')) {
      const classes = (ctx.data.stepState[planned.id]?.classes ?? {}) as Record<string, ClassPlan>;
      for (const [name, nodeClass] of Object.entries(classes)) {
        if (nodeClass.patched && nodeClass.restoreAfterControlPlane) pending.push([name, nodeClass.restoreAfterControlPlane]);
      }
    }
    if (pending.length === 0) return result;
    const done = new Set(ctx.stepState<{ aliasesRestored: string[] }>().aliasesRestored ?? []);
    const lines: string[] = [];
    for (const [name, terms] of pending.sort(([a], [b]) => a.localeCompare(b))) {
      if (done.has(name)) continue;
      const pointed = await execute(ctx, { kind: 'point-node-class', nodeClass: name, terms, whenGone: 'report' });
      if (pointed.kind === 'gone') {
        lines.push(`EC2NodeClass ${name} no longer exists; its alias was not put back.`);
      } else {
        lines.push(`EC2NodeClass ${name}: amiSelectorTerms → ${describeTerms(terms)} again (it follows the cluster version; at ${ctx.step.to} that is the image its nodes already run, so nothing drifts).`);
        ctx.recordActed({ resource: `ec2nodeclass/${name}`, action: 'follow-alias', to: ctx.step.to, outcome: 'done', note: 'alias put back after the control-plane rollback' });
      }
      done.add(name);
      await ctx.saveStepState({ aliasesRestored: [...done] });
    }
    if (lines.length > 0) await ctx.emit('karpenter-alias-restore', { kind: 'note', at: ctx.clock.now(), level: 'info', text: lines.join('\n') });
    return result;
  };
}
