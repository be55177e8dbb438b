import type { KubePort } from '../../../src/ports/kube-port.js';
import type { StepContext } from '../../engine/step-context.js';
import { createChangeSignal, startWatchCaches } from '../../engine/watch-cache.js';
import { describeWorkload, FARGATE_LABEL, rolloutState, type WorkloadResource } from '../../../src/planning/deciders/fargate-workloads.js';

/**
 * What the Fargate step keeps in job.data: the workloads to restart, in order, each with the restartedAt value
 * chosen before the patch (so a re-run writes the same value, which changes nothing, instead of restarting again)
 * and when its pods were all Ready on target nodes.
 */
export interface RestartRecord {
  resource: WorkloadResource;
  namespace: string;
  name: string;
  pods: number;
  restartedAt?: string;
  patched?: boolean;
  doneAt?: number;
  /** Pods Ready on target nodes / wanted, when last seen. */
  moved?: string;
}

export interface FargateStepState {
  startedAt: number;
  workloads: RestartRecord[];
  manual: string[];
}

export interface RolloutFollowOptions {
  windowMs: number;
  tickMs?: number;
  /** A restart not finished this long after it was issued is reported (once). */
  slowMs: number;
}

/**
 * Follows one restarted workload by watching its pods, the Fargate nodes and the workload itself (no polling), until
 * its pods are Ready on target nodes, the window ends, or the job is aborted. Progress reads "Fargate workloads
 * restarted 1/3" with the current workload's pods.
 */
export async function followFargateRollout(
  ctx: StepContext,
  kube: KubePort,
  state: FargateStepState,
  record: RestartRecord,
  deadline: number,
  options: RolloutFollowOptions,
): Promise<'done' | 'window' | 'aborted'> {
  const tickMs = options.tickMs ?? Math.max(20, Math.min(ctx.pollIntervalMs, 5_000));
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const caches = await startWatchCaches(
    kube,
    {
      workload: { resource: record.resource, options: { namespace: record.namespace, fieldSelector: `metadata.name=${record.name}` } },
      pods: { resource: 'pods', options: { namespace: record.namespace } },
      nodes: { resource: 'nodes', options: { labelSelector: `${FARGATE_LABEL}=fargate` } },
    },
    { onChange: () => signal.notify(), onError: (error) => ctx.logger.warn({ err: error }, 'Fargate rollout watch error; it reconnects by itself') },
  );
  const done = () => state.workloads.filter((w) => w.doneAt !== undefined).length;
  try {
    for (;;) {
      await signal.wait(tickMs);
      const now = ctx.clock.now();
      const rollout = rolloutState({
        workload: caches.workload.get(record.name, record.namespace), resource: record.resource,
        pods: caches.pods.items(), nodes: caches.nodes.items(), target: ctx.step.to,
      });
      record.moved = `${rollout.moved}/${rollout.wanted}`;
      if (rollout.done) {
        record.doneAt = now;
        await ctx.setProgress(`Fargate workloads restarted ${done()}/${state.workloads.length}`);
        await ctx.emit(`moved:${record.resource}/${record.namespace}/${record.name}`, {
          kind: 'progress', at: now, step: ctx.step.id,
          text: `${describeWorkload(record)}: ${rollout.moved}/${rollout.wanted} pod(s) Ready on ${ctx.step.to} Fargate nodes (Fargate workloads restarted ${done()}/${state.workloads.length}).`,
        });
        return 'done';
      }
      await ctx.setProgress(`Fargate workloads restarted ${done()}/${state.workloads.length}; ${describeWorkload(record)} ${rollout.moved}/${rollout.wanted} pod(s) on ${ctx.step.to}`);
      const restartedAt = Date.parse(record.restartedAt ?? '');
      if (Number.isFinite(restartedAt) && now - restartedAt >= options.slowMs) {
        await ctx.emit(`slow:${record.resource}/${record.namespace}/${record.name}:${record.restartedAt}`, {
          kind: 'note', at: now, level: 'warning',
          text: `${describeWorkload(record)} has not finished its restart ${Math.round((now - restartedAt) / 60_000)} minutes on (${rollout.moved}/${rollout.wanted} pod(s) Ready on ${ctx.step.to}, ${rollout.old} still on old nodes). Check \`kubectl -n ${record.namespace} describe pods\`: a Fargate profile that no longer matches, an image pull or a failing readiness probe usually shows there. The job keeps following; Abort stops it.`,
        });
      }
      if ((await ctx.controls()).abort) return 'aborted';
      if (now >= deadline) return 'window';
    }
  } finally {
    caches.stopAll();
  }
}
