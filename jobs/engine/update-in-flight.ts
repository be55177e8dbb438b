import type { Update } from '@aws-sdk/client-eks';
import type { StepContext } from './step-context.js';
import { inProgressUpdate, readRecentUpdates } from './read-cluster-updates.js';

/** EKS's answer to an update call while another update of the same resource runs (the SDK's exception name). */
export function isResourceInUse(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ResourceInUseException';
}

/**
 * After ResourceInUseException on UpdateClusterVersion / UpdateNodegroupVersion / UpdateAddon: an update of that
 * resource is running — most often this job's own earlier call, whose answer was lost (an SDK retry after a dropped
 * connection, the step retried, its worker restarted). The update of that kind in flight is found, recorded under
 * `record.key` as adopted and returned, for the step to follow as its own. When none shows yet (ListUpdates may lag,
 * or another kind of update holds the resource), it waits one poll interval and returns undefined, so the step's
 * loop reads the world again after a wait, never at once.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateClusterVersion.html (ResourceInUseException)
 */
export async function adoptUpdateInFlight(
  ctx: StepContext,
  scope: { nodegroupName?: string; addonName?: string } | undefined,
  type: 'VersionUpdate' | 'AddonUpdate',
  record: { key: string; operation: string; target: string },
): Promise<string | undefined> {
  const running: Update | undefined = inProgressUpdate(await readRecentUpdates(ctx.eks, ctx.data.cluster, scope ? { scope } : {}), [type]);
  if (running?.id) {
    await ctx.recordUpdate(record.key, { updateId: running.id, operation: record.operation, target: record.target, at: ctx.clock.now(), adopted: true });
    await ctx.emit(`${record.key}:adopted:${running.id}`, {
      kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
      text: `${record.operation} ${record.target}: EKS says an update is already running (ResourceInUseException); following update ${running.id} rather than starting another.`,
    });
    return running.id;
  }
  await ctx.sleep(ctx.pollIntervalMs);
  return undefined;
}
