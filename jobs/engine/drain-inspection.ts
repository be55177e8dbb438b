import { describeError, isTransientError } from './classify-error.js';
import { findDrainBlockers, safeRemedy, type DrainBlocker, type DrainRemedy } from '../../src/planning/workloads/find-drain-blockers.js';
import { createChangeSignal, startWatchCache } from './watch-cache.js';
import { StepFailure, type StepContext } from './step-context.js';
import { mention } from '../../src/report/format-text.js';

/**
 * Reads what a blocked drain needs explained (pods on the nodes, PDBs, ReplicaSets, Deployments) and applies the
 * safe remedy, or Force (deleting the blocking pods), when an approver chooses it. The reading is best-effort: if the Kubernetes API cannot be read, the
 * gate still offers Force and says the details are missing.
 */
export interface DrainInspection {
  blockers: DrainBlocker[];
  remedy?: DrainRemedy;
  error?: string;
}

export async function inspectDrain(ctx: StepContext, nodes: string[]): Promise<DrainInspection> {
  try {
    return await readDrain(ctx, nodes);
  } catch (error) {
    return { blockers: [], error: describeError(error) };
  }
}

async function readDrain(ctx: StepContext, nodes: string[]): Promise<DrainInspection> {
  const kube = await ctx.kube();
  const [pods, pdbs, replicaSets, deployments] = await Promise.all([
    kube.list('pods'),
    kube.list('poddisruptionbudgets'),
    kube.list('replicasets'),
    kube.list('deployments'),
  ]);
  const blockers = findDrainBlockers({ pods: pods.items, pdbs: pdbs.items, replicaSets: replicaSets.items, nodes });
  return { blockers, remedy: safeRemedy(blockers, deployments.items, pdbs.items) };
}

/**
 * The executor's scale-for-drain (jobs/engine/execute-commands.ts). Scales the deployment and waits (bounded) until the extra replica is available, so the retry can drain. The
 * deployment's status comes from a watch on it, not from reading it in a loop.
 */
export async function applyRemedy(ctx: StepContext, remedy: DrainRemedy, timeoutMs = 10 * 60_000): Promise<void> {
  const kube = await ctx.kube();
  await kube.patch('deployments', remedy.deployment, { spec: { replicas: remedy.replicas } }, { namespace: remedy.namespace, type: 'merge' });
  await ctx.emit(`remedy:${remedy.namespace}/${remedy.deployment}:${remedy.replicas}`, {
    kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: `${remedy.label}: scaled ${remedy.namespace}/${remedy.deployment} to ${remedy.replicas} replicas.`,
  });
  const deadline = ctx.clock.now() + timeoutMs;
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const deployments = await startWatchCache(
    kube,
    { resource: 'deployments', options: { namespace: remedy.namespace, fieldSelector: `metadata.name=${remedy.deployment}` } },
    { onChange: () => signal.notify(), onError: (error) => ctx.logger.warn({ err: error }, 'deployment watch error; it reconnects by itself') },
  );
  try {
    for (;;) {
      const deployment = deployments.get(remedy.deployment, remedy.namespace);
      if ((deployment?.status?.availableReplicas ?? 0) >= remedy.replicas) return;
      if (ctx.clock.now() >= deadline) {
        throw new StepFailure(`${remedy.label}: ${remedy.namespace}/${remedy.deployment} did not reach ${remedy.replicas} available replicas within ${Math.round(timeoutMs / 60_000)} minutes`, {
          remedy: `check why its pods are not Ready (kubectl -n ${remedy.namespace} describe deployment ${remedy.deployment}), then start the upgrade again`,
        });
      }
      await ctx.setProgress(`waiting for ${remedy.namespace}/${remedy.deployment} to have ${remedy.replicas} available replicas (${deployment?.status?.availableReplicas ?? 0} now)`);
      await signal.wait(deadline - ctx.clock.now());
    }
  } finally {
    deployments.stop();
  }
}

export interface ForcedDrain {
  /** namespace/name of each pod deleted. */
  pods: string[];
  by: string;
  reason?: string;
  at: number;
}

/**
 * The executor's force-drain (never run in a dry run, which describes it instead). Force for a drain that only waits on evictions (a node group being deleted): the pods the PDBs protect are
 * deleted outright — a DELETE is not an eviction, so no PDB refuses it, as with `kubectl delete pod` — and the
 * drain's next eviction round finds the node empty; their Deployments recreate them on schedulable nodes. The
 * blockers are read again now rather than taken from the gate card, which may be minutes old.
 */
export async function forceDrain(ctx: StepContext, nodes: string[], answer: { by: string; reason?: string }): Promise<ForcedDrain> {
  // Unlike the gate card's best-effort reading, a failure here fails the attempt (a transient one is retried):
  // Force must not claim to have cleared pods it could not see.
  const { blockers } = await readDrain(ctx, nodes);
  const pods = [...new Set(blockers.map((blocker) => blocker.pod))];
  const kube = await ctx.kube();
  for (const pod of pods) {
    const [namespace, name] = pod.split('/');
    try {
      await kube.deletePod(namespace, name);
    } catch (error) {
      if (isTransientError(error)) throw error;
      throw new StepFailure(`Force chosen by ${mention(answer.by)}, but ${(error as Error).message ?? describeError(error)}`, {
        remedy: `delete it yourself (kubectl -n ${namespace} delete pod ${name}); the drain then proceeds`,
        cause: error,
      });
    }
  }
  return { pods, by: answer.by, reason: answer.reason, at: ctx.clock.now() };
}
