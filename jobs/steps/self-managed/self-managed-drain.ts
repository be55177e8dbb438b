import { isEvictablePod, podRef } from '../../../src/planning/compute-groups.js';
import { KubeApiError, type KubeObject } from '../../../src/ports/kube-port.js';
import { describeBlocker } from '../../../src/planning/workloads/find-drain-blockers.js';
import { createChangeSignal, startWatchCaches } from '../../engine/watch-cache.js';
import type { StepContext, StepResult } from '../../engine/step-context.js';
import { inspectDrain } from '../../engine/drain-inspection.js';
import { execute, halted } from '../../engine/execute-commands.js';
import { mention } from '../../../src/report/format-text.js';

/**
 * Cordon and drain one node of a self-managed group through the Eviction API, as `kubectl drain` does: every pod
 * but DaemonSet and mirror pods is evicted, a PodDisruptionBudget refusal (429) is retried as the budget frees up,
 * and the pods on the node come from a watch, not a polling loop. A drain blocked for DRAIN_BLOCKED_MS — or at once,
 * when a PDB demands every replica of its workload so waiting cannot help — opens the same card as a managed node group's PodEvictionFailure: the pods and PDBs that block it, the safe remedy where
 * one exists ("Scale orders to 2 replicas"), Force (delete the blocking pods) and Abort.
 */
export const DRAIN_BLOCKED_MS = 10 * 60_000;
const RETRY_MS = 5_000;

export type DrainOutcome = { drained: true; evicted: string[] } | { drained: false; result: StepResult };

export async function drainNode(ctx: StepContext, input: { group: string; node: string; stateKey: string }): Promise<DrainOutcome> {
  const kube = await ctx.kube();
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const caches = await startWatchCaches(
    kube,
    { pods: { resource: 'pods', options: { fieldSelector: `spec.nodeName=${input.node}` } }, pdbs: { resource: 'poddisruptionbudgets' } },
    { onChange: () => signal.notify(), onError: (error) => ctx.logger.warn({ err: error }, 'drain watch error; it reconnects by itself') },
  );
  const evicted: string[] = [];
  const gateId = `h${ctx.step.hop}-smg-${input.group}-drain-${input.node}`;
  try {
    for (;;) {
      const pods = caches.pods.items().filter((pod) => pod.spec?.nodeName === input.node && isEvictablePod(pod));
      const waiting = pods.filter((pod) => !pod.metadata.deletionTimestamp);
      if (pods.length === 0) return { drained: true, evicted };
      const blocked: KubeObject[] = [];
      for (const pod of waiting) {
        try {
          await kube.evictPod(pod.metadata.namespace ?? 'default', pod.metadata.name);
          evicted.push(podRef(pod));
        } catch (error) {
          if (error instanceof KubeApiError && error.code === 404) continue;
          if (error instanceof KubeApiError && error.code === 429) blocked.push(pod);
          else throw error;
        }
      }
      const saved = (ctx.stepState()[input.stateKey] ?? {}) as { blockedSince?: number };
      if (blocked.length === 0) {
        if (saved.blockedSince !== undefined) await ctx.saveStepState({ [input.stateKey]: {} });
      } else {
        const since = saved.blockedSince ?? ctx.clock.now();
        if (saved.blockedSince === undefined) await ctx.saveStepState({ [input.stateKey]: { blockedSince: since } });
        await ctx.setProgress(`${input.group}: draining ${input.node}, ${blocked.length} pod(s) wait for their PodDisruptionBudget`);
        // A PDB that demands every replica (1 replica, minAvailable 1) never frees up by waiting: ask at once.
        const hopeless = ctx.clock.now() - since < DRAIN_BLOCKED_MS && (await inspectDrain(ctx, [input.node])).remedy !== undefined;
        if (hopeless || ctx.clock.now() - since >= DRAIN_BLOCKED_MS) {
          const answer = await blockedGate(ctx, gateId, input);
          if (answer) return { drained: false, result: answer };
          await ctx.saveStepState({ [input.stateKey]: {} });
          continue;
        }
      }
      await signal.wait(RETRY_MS);
    }
  } finally {
    caches.stopAll();
  }
}

/** The blocked-drain card; returns a step result when the job must stop or park, undefined to drain again. */
async function blockedGate(ctx: StepContext, gateId: string, input: { group: string; node: string }): Promise<StepResult | undefined> {
  const drain = await inspectDrain(ctx, [input.node]);
  const details = drain.blockers.length ? drain.blockers.slice(0, 20).map(describeBlocker) : [`The blocking pods could not be identified${drain.error ? ` (${drain.error})` : ''}.`];
  const outcome = await execute(ctx, {
    kind: 'ask-gate',
    gate: {
      gateId,
      title: `Self-managed group ${input.group} could not drain ${input.node}. Force the drain, or abort?`,
      details: [
        `Draining ${input.node} waits for PodDisruptionBudgets${drain.remedy ? ' that cannot allow an eviction as they are' : ` (${Math.round(DRAIN_BLOCKED_MS / 60_000)} minutes so far)`}.`,
        ...details,
        `What to do: ${drain.remedy ? `${drain.remedy.label}, or ` : ''}Force (deletes the blocking pods, ignoring the PDBs).`,
      ],
      actions: drain.remedy ? ['remedy', 'force', 'abort'] : ['force', 'abort'],
      remedyLabel: drain.remedy?.label,
    },
  });
  if (outcome.kind !== 'answered') return halted(outcome);
  if (outcome.action === 'remedy' && drain.remedy) await execute(ctx, { kind: 'scale-for-drain', remedy: drain.remedy });
  if (outcome.action === 'force') {
    const deleted = await execute(ctx, { kind: 'force-drain', nodes: [input.node], by: outcome.by, reason: outcome.reason });
    if (deleted.kind !== 'forced') return halted(deleted);
    const { forced } = deleted;
    await ctx.emit(`smg:${input.group}:${input.node}:forced`, {
      kind: 'note', at: ctx.clock.now(), level: 'warning',
      text: `Force by ${mention(outcome.by)}${outcome.reason ? ` (${outcome.reason})` : ''}: deleted ${forced.pods.join(', ') || 'no pods'} on ${input.node}, ignoring their PDBs.`,
    });
  }
  await execute(ctx, { kind: 'reopen-gate', gateId });
  return undefined;
}
