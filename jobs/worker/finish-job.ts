import { exportTimeline } from '../../src/store/export-timeline.js';
import type { TimelineEvent, UpgradeState } from '../../src/ports/timeline-event.js';
import { rollbackOfferOf, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { JobRuntime } from './job-runtime.js';
import { planVersusJobLines } from '../../src/report/plan-vs-job.js';

/**
 * The end of a job, whichever way it ends: final state in job.data, the summary card (per-step durations), the
 * status card, the timeline uploaded as Markdown, and the cluster lock released. Every part is keyed or
 * compare-and-set, so finishing twice (a crash in the middle, then a re-run) posts nothing twice.
 */
export type FinalState = Extract<UpgradeState, 'succeeded' | 'failed' | 'aborted'>;

export function summaryEvent(data: UpgradeJobData, at: number): Extract<TimelineEvent, { kind: 'summary' }> {
  const steps = data.steps
    .filter((step) => data.stepRuns[step.id])
    .map((step) => {
      const run = data.stepRuns[step.id];
      const durationMs = run.durationMs ?? Math.max(0, (run.finishedAt ?? at) - run.startedAt);
      // Who decided (a mention) is listed under Decisions, where Slack renders it; the table is a code block.
      const summary = run.summary && MENTION.test(run.summary) ? `${run.summary.replace(/ by <@[A-Z0-9]+>.*$/s, '')} (see Decisions)` : run.summary;
      return { title: step.title, durationMs, outcome: summary ? `${run.outcome ?? 'running'}: ${summary}` : (run.outcome ?? 'running') };
    });
  const decisions = decisionLines(data);
  const issued = Object.values(data.updates).flatMap((byName) => Object.values(byName));
  const lines = [data.outcomeText ?? `The ${data.rollback ? 'rollback' : 'upgrade'} ended ${data.state}.`];
  if (data.dryRun) lines.push('This was a dry run: nothing was changed.');
  if (issued.length > 0) {
    lines.push(
      `AWS updates: ${issued.map((u) => `${u.operation} → ${u.target} (${u.updateId}${u.adopted ? ', adopted' : ''})`).join('; ')}.`,
    );
  }
  lines.push(...planVersusJobLines(data));
  const notRun = data.steps.length - steps.length;
  if (notRun > 0 && data.state !== 'succeeded') lines.push(`${notRun} step(s) did not run.`);
  const rollback = data.state === 'succeeded' ? rollbackOfferOf(data) : undefined;
  return { kind: 'summary', at, state: data.state, from: data.from, to: data.to, steps, lines, ...(decisions.length > 0 ? { decisions } : {}), ...(rollback ? { rollback } : {}), ...(data.rollback ? { rollbackJob: true } : {}) };
}

const MENTION = /<@[A-Z0-9]+>/;

/** A waiver's approver: a Slack user as a mention, anything else (clusters.yaml's approvedBy) as written. */
function who(by: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(by) ? `<@${by}>` : by;
}

/**
 * What people decided during the job, with who and why (issue 25): every gate answered (approvals and Forces, from
 * the steps' own summaries), every waiver the preflight applied, every step skipped and why.
 */
export function decisionLines(data: UpgradeJobData): string[] {
  const lines: string[] = [];
  const waivers = new Map<string, string>();
  for (const step of data.steps) {
    const run = data.stepRuns[step.id];
    if (!run) continue;
    if (run.summary && MENTION.test(run.summary)) lines.push(`${step.title}: ${run.summary}`);
    else if (run.outcome === 'skipped') lines.push(`Skipped ${step.title}: ${run.summary ?? 'no reason recorded'}`);
    const applied = data.stepState[step.id]?.waived;
    for (const waiver of Array.isArray(applied) ? (applied as AppliedWaiver[]) : []) {
      waivers.set(`${waiver.code} ${waiver.resource}`, `Waiver applied: ${waiver.code} on ${waiver.resource}, approved by ${who(waiver.by)} until ${waiver.until}: ${waiver.reason}`);
    }
  }
  return [...lines, ...waivers.values()];
}

/** What the preflight step records of each waiver it applied (its step state `waived`). */
export interface AppliedWaiver {
  code: string;
  resource: string;
  by: string;
  until: string;
  reason: string;
}

export async function finishJob(runtime: JobRuntime, state: FinalState, outcomeText: string): Promise<void> {
  const { data, deps } = runtime;
  const now = deps.clock.now();
  const step = data.steps[data.stepIndex];
  const run = step ? data.stepRuns[step.id] : undefined;
  if (run && run.finishedAt === undefined) {
    run.finishedAt = now;
    run.durationMs = now - run.startedAt;
    run.outcome = state === 'aborted' ? 'aborted' : 'failed';
  }
  // Counted once: a job finished again after a crash in the middle of this function already has finishedAt.
  if (data.finishedAt === undefined) deps.metrics.countUpgrade(state);
  data.state = state;
  data.finishedAt ??= now;
  data.outcomeText ??= outcomeText;
  data.progress = undefined;
  await runtime.save();
  // The step that was running when the job was aborted says so in its message (a failure already did, with why).
  if (step && run?.outcome === 'aborted') await runtime.showStep(step, now, `${data.jobId}:${step.id}:aborted`);

  await runtime.emitKeyed(`${data.jobId}:summary`, `${data.jobId}:summary`, summaryEvent(data, now));
  await runtime.card();
  await uploadTimeline(runtime);
  await deps.lock.release(data.cluster, data.jobId);
}

async function uploadTimeline(runtime: JobRuntime): Promise<void> {
  const { data, deps } = runtime;
  try {
    await exportTimeline(deps, data, `${data.jobId}:timeline`);
  } catch (error) {
    // The export is a convenience; the job's outcome must not depend on it.
    deps.logger.warn({ err: error, jobId: data.jobId }, 'exporting the timeline failed');
  }
}

export { rollbackOfferOf } from '../../src/planning/upgrade-job-data.js';
