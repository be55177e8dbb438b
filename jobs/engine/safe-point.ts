import { PAUSE_RECHECK_MS } from '../../src/domain/pause-recheck.js';
import type { StepContext, StepResult } from './step-context.js';
import { mention } from '../../src/report/format-text.js';

/**
 * A safe point inside a step that works through several items (add-ons, node groups): between two items nothing
 * is in flight, so a Pause parks the job here and an Abort ends it here, instead of waiting for the whole step.
 * Items already done are recorded in job.data, so the step picks up at the next one when resumed.
 */
export async function safePoint(ctx: StepContext, before: string): Promise<StepResult | undefined> {
  const controls = await ctx.controls();
  if (controls.abort) {
    return { outcome: 'abort', by: controls.abort.by, reason: `${mention(controls.abort.by)} aborted; the job stopped before ${before}` };
  }
  if (controls.paused) {
    return {
      outcome: 'wait',
      delayMs: PAUSE_RECHECK_MS,
      wakeEarly: async () => {
        const latest = await ctx.controls();
        return !latest.paused || !!latest.abort;
      },
    };
  }
  return undefined;
}
