import type { Update } from '@aws-sdk/client-eks';
import type { StepContext } from './step-context.js';
import { mention } from '../../src/report/format-text.js';

/**
 * Follows an EKS update (cluster version, add-on, node group) with DescribeUpdate at the engine's poll interval —
 * a bounded rate whatever the number of watchers — until it ends. AWS cannot pause or stop these updates, so a
 * Pause or Abort requested meanwhile is acknowledged once and takes effect after the update ends.
 */
export interface FollowOptions {
  cluster: string;
  updateId: string;
  scope?: { nodegroupName?: string; addonName?: string };
  /** "version update to 1.31" — used in the progress line. */
  label: string;
  /** Called with each InProgress read, e.g. to report node-group progress. */
  onPoll?: (update: Update) => Promise<void>;
  /** What an Abort does to this update, when not "the job waits for it to end" (an Auto Mode rollback's CancelUpdate). */
  abortNote?: (by: string) => string | undefined;
}

export async function followUpdate(ctx: StepContext, options: FollowOptions): Promise<Update> {
  const startedAt = ctx.clock.now();
  let announcedAbort = false;
  let announcedPause = false;
  for (;;) {
    const update = await ctx.eks.describeUpdate(options.cluster, options.updateId, options.scope);
    if (update.status !== 'InProgress') return update;
    const elapsedMinutes = Math.floor((ctx.clock.now() - startedAt) / 60_000);
    await ctx.setProgress(`${options.label} in progress (${options.updateId}), ${elapsedMinutes} min so far`);
    await options.onPoll?.(update);
    const controls = await ctx.controls();
    const abortNote = controls.abort ? options.abortNote?.(controls.abort.by) : undefined;
    if (controls.abort && !announcedAbort && abortNote !== '') {
      announcedAbort = true;
      await ctx.emit(`abort-waits:${options.updateId}`, {
        kind: 'note',
        at: ctx.clock.now(),
        level: 'warning',
        text: abortNote ?? `Abort requested by ${mention(controls.abort.by)}. AWS cannot stop the ${options.label} (${options.updateId}); the job waits for it to end, then stops.`,
      });
    }
    if (controls.paused && !announcedPause) {
      announcedPause = true;
      await ctx.emit(`pause-waits:${options.updateId}:${controls.pauseSeq}`, {
        kind: 'note',
        at: ctx.clock.now(),
        level: 'info',
        text: `Pause requested by ${mention(controls.pausedBy ?? 'someone')}. AWS cannot pause the ${options.label} (${options.updateId}); it will finish, then the job waits.`,
      });
    }
    await ctx.sleep(ctx.pollIntervalMs);
  }
}
