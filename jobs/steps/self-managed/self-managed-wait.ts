import { createChangeSignal, startWatchCaches } from '../../engine/watch-cache.js';
import { StepFailure, type StepContext } from '../../engine/step-context.js';
import { instanceIdOfNode } from '../../../src/planning/compute-groups.js';
import { isNodeReady, kubeletMinorOf } from '../../../src/domain/node-status.js';

/**
 * Waiting after a termination: until the old node is gone, the group is back at its desired capacity with every
 * instance's node Ready at the target, and no pod of the namespaces drained from that node is left unscheduled.
 * Nodes and pods come from watches; the group itself is re-read from Auto Scaling at most once per poll interval.
 */
export const REPLACEMENT_TIMEOUT_MS = 20 * 60_000;

export async function waitForReplacement(ctx: StepContext, input: { group: string; node: string; instanceId: string; namespaces?: string[] }): Promise<void> {
  const kube = await ctx.kube();
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const caches = await startWatchCaches(
    kube,
    { nodes: { resource: 'nodes' }, pods: { resource: 'pods' } },
    { onChange: () => signal.notify(), onError: (error) => ctx.logger.warn({ err: error }, 'replacement watch error; it reconnects by itself') },
  );
  const started = ctx.clock.now();
  let lastRead = -Infinity;
  let groupReady = false;
  try {
    for (;;) {
      const oldGone = !caches.nodes.get(input.node);
      if (oldGone && ctx.clock.now() - lastRead >= ctx.pollIntervalMs) {
        lastRead = ctx.clock.now();
        const [info] = await ctx.autoScaling.describeGroups([input.group]);
        const byInstance = new Map(caches.nodes.items().map((n) => [instanceIdOfNode(n), n]));
        const live = (info?.instances ?? []).filter((i) => i.lifecycleState === 'InService' || i.lifecycleState === 'Pending');
        const readyAtTarget = live.filter((i) => {
          const node = byInstance.get(i.instanceId);
          return node && isNodeReady(node) && kubeletMinorOf(node) === ctx.step.to;
        });
        groupReady = Boolean(info) && live.length >= (info?.desiredCapacity ?? 0) && live.every((i) => byInstance.get(i.instanceId) && isNodeReady(byInstance.get(i.instanceId)!)) && readyAtTarget.length > 0;
        await ctx.setProgress(`${input.group}: ${readyAtTarget.length}/${info?.desiredCapacity ?? live.length} nodes at ${ctx.step.to} (replacing ${input.node})`);
      }
      const namespaces = new Set(input.namespaces ?? []);
      const unscheduled = caches.pods.items().filter((p) => !p.spec?.nodeName && !p.metadata.deletionTimestamp && namespaces.has(p.metadata.namespace ?? 'default'));
      if (oldGone && groupReady && unscheduled.length === 0) return;
      if (ctx.clock.now() - started > REPLACEMENT_TIMEOUT_MS) {
        const why = !oldGone ? `node ${input.node} is still registered` : !groupReady ? 'the group has no Ready replacement at the target yet' : `${unscheduled.length} pod(s) are still unscheduled`;
        throw new StepFailure(`self-managed group ${input.group}: the replacement of ${input.node} (${input.instanceId}) did not finish within ${REPLACEMENT_TIMEOUT_MS / 60_000} minutes: ${why}`, {
          remedy: `look at the group (aws autoscaling describe-scaling-activities --auto-scaling-group-name ${input.group}) and its nodes (kubectl get nodes -o wide), then start the upgrade again; it resumes without terminating another instance`,
        });
      }
      await signal.wait(ctx.pollIntervalMs);
    }
  } finally {
    caches.stopAll();
  }
}

/** Instances still booting: wait a poll interval (Auto Scaling is re-read by the caller). */
export async function waitForGroupChange(ctx: StepContext, group: string, reason: string): Promise<void> {
  await ctx.setProgress(`${group}: ${reason}`);
  await ctx.sleep(ctx.pollIntervalMs);
}
