import { PAUSE_RECHECK_MS } from '../../../src/domain/pause-recheck.js';
import type { KubePort } from '../../../src/ports/kube-port.js';
import { describeWorkload, planFargateRestarts, workloadKey } from '../../../src/planning/deciders/fargate-workloads.js';
import { followFargateRollout, type FargateStepState, type RestartRecord, type RolloutFollowOptions } from './follow-fargate-rollout.js';
import type { Step, StepContext, StepResult } from '../../engine/step-context.js';
import { resourcesToAct } from '../../engine/plan-check.js';
import { safePoint } from '../../engine/safe-point.js';
import { mention } from '../../../src/report/format-text.js';
import { execute, preview } from '../../engine/execute-commands.js';

/**
 * Fargate workloads of one hop. A Fargate pod keeps its node's kubelet for life, so the workloads whose pods sit
 * on Fargate nodes below the target are restarted as `kubectl rollout restart` does (a restartedAt annotation on the
 * pod template), one at a time, each followed by watching until its pods are Ready on target nodes. Between two
 * workloads is a safe point (Pause parks there, Abort ends there); a restart already issued runs to completion.
 * Pods without a Deployment or StatefulSet are reported for the operator.
 */
export interface FargateStepOptions extends Partial<RolloutFollowOptions> {
  resumeDelayMs?: number;
}

const DEFAULTS: RolloutFollowOptions = { windowMs: 3 * 60_000, slowMs: 15 * 60_000 };

function readState(ctx: StepContext): FargateStepState | undefined {
  const saved = ctx.stepState<Record<string, unknown>>();
  return Array.isArray(saved.workloads) ? (structuredClone(saved) as unknown as FargateStepState) : undefined;
}

async function saveState(ctx: StepContext, state: FargateStepState): Promise<void> {
  await ctx.saveStepState(structuredClone(state) as unknown as Record<string, unknown>);
}

async function plan(ctx: StepContext, kube: KubePort): Promise<StepResult | FargateStepState> {
  const [nodes, pods] = await Promise.all([kube.list('nodes', { labelSelector: 'eks.amazonaws.com/compute-type=fargate' }), kube.list('pods')]);
  if (nodes.items.length === 0) return { outcome: 'skipped', summary: 'no Fargate nodes' };
  const namespaces = [...new Set(pods.items.filter((p) => nodes.items.some((n) => n.metadata.name === p.spec?.nodeName)).map((p) => p.metadata.namespace ?? 'default'))];
  const replicaSets = (await Promise.all(namespaces.map((namespace) => kube.list('replicasets', { namespace })))).flatMap((list) => list.items);
  const decided = planFargateRestarts({ nodes: nodes.items, pods: pods.items, replicaSets, target: ctx.step.to });
  // The planner runs the same decider over the snapshot; act on the workloads the approved plan names.
  const act = await resourcesToAct(ctx, () => decided.workloads.map((w) => ({ resource: workloadKey(w), action: 'restart-workload' as const, reason: `${w.pods.length} pod(s) on old Fargate nodes` })));
  const found = { ...decided, workloads: decided.workloads.filter((w) => act.has(workloadKey(w))) };
  if (found.workloads.length === 0 && found.manual.length === 0) {
    return { outcome: 'skipped', summary: `all ${found.fargateNodes} Fargate node(s) already at ${ctx.step.to}` };
  }
  const restarts = found.workloads.map((w) => `${describeWorkload(w)} (${w.pods.length} pod(s))`);
  const dry = preview(ctx, [{ kind: 'restart-workloads', workloads: restarts, to: ctx.step.to, manual: found.manual }]);
  if (dry) return dry;
  return {
    startedAt: ctx.clock.now(),
    workloads: found.workloads.map((w) => ({ resource: w.resource, namespace: w.namespace, name: w.name, pods: w.pods.length })),
    manual: found.manual,
  };
}

/** Writes the restartedAt annotation chosen (and saved) before the first attempt; a re-run writes the same value. */
async function restart(ctx: StepContext, state: FargateStepState, record: RestartRecord): Promise<void> {
  if (!record.restartedAt) {
    record.restartedAt = new Date(ctx.clock.now()).toISOString();
    await saveState(ctx, state);
  }
  await execute(ctx, { kind: 'restart-workload', resource: record.resource, namespace: record.namespace, name: record.name, restartedAt: record.restartedAt });
  record.patched = true;
  await saveState(ctx, state);
  await ctx.emit(`restart:${workloadKey(record)}:${record.restartedAt}`, {
    kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
    text: `Restarted ${describeWorkload(record)} (as kubectl rollout restart) so its ${record.pods} pod(s) move to ${ctx.step.to} Fargate nodes.`,
  });
}

export function createFargateStep(options: FargateStepOptions = {}): Step {
  const follow: RolloutFollowOptions = { ...DEFAULTS, ...options };
  return async (ctx) => {
    const kube = await ctx.kube();
    let state = readState(ctx);
    if (!state) {
      const planned = await plan(ctx, kube);
      if ('outcome' in planned) return planned;
      state = planned;
      await saveState(ctx, state);
    }
    if (state.manual.length) {
      await ctx.emit('manual', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: `Fargate pods the bot does not restart:\n${state.manual.join('\n')}` });
    }
    const deadline = ctx.clock.now() + follow.windowMs;
    for (;;) {
      const record = state.workloads.find((w) => w.doneAt === undefined);
      if (!record) {
        for (const w of state.workloads) ctx.recordActed({ resource: workloadKey(w), action: 'restart-workload', to: ctx.step.to, outcome: 'done' });
        return { outcome: 'done', summary: summaryOf(ctx, state) };
      }
      if (!record.patched) {
        // The shared safe point: Pause parks here (and wakes on Resume or Abort), Abort ends here.
        const stop = await safePoint(ctx, `restarting ${describeWorkload(record)}`);
        if (stop) return stop;
        await restart(ctx, state, record);
      }
      const end = await followFargateRollout(ctx, kube, state, record, deadline, follow);
      await saveState(ctx, state);
      if (end === 'window') return { outcome: 'wait', delayMs: options.resumeDelayMs ?? ctx.pollIntervalMs };
      if (end === 'aborted') {
        const by = (await ctx.controls()).abort?.by ?? 'someone';
        return { outcome: 'abort', by, reason: `${mention(by)} aborted while ${describeWorkload(record)} restarts (its rollout finishes by itself)` };
      }
    }
  };
}

export const fargateStep: Step = createFargateStep();

function summaryOf(ctx: StepContext, state: FargateStepState): string {
  const done = state.workloads.map((w) => `${describeWorkload(w)} ${w.moved ?? '?'} pod(s)`);
  const parts = [`Fargate workloads restarted ${state.workloads.length}/${state.workloads.length}${done.length ? ` (${done.join(', ')} on ${ctx.step.to})` : ''}`];
  if (state.manual.length) parts.push(`${state.manual.length} pod(s) left for the operator (see above)`);
  return parts.join('; ');
}
