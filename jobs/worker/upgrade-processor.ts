import { accessDeniedRemedy } from '../../src/aws/describe-aws-error.js';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { backoffMs, transientAttempt } from '../../src/domain/backoff.js';
import { PAUSE_RECHECK_MS } from '../../src/domain/pause-recheck.js';
import { wallMsOf } from '../../src/ports/clock.js';
import { describeError, isTransientError } from '../engine/classify-error.js';
import { StepFailure, type StepResult } from '../engine/step-context.js';
import { isTerminal, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedStep } from '../../src/ports/upgrade-plan.js';
import { finishJob, rollbackOfferOf } from './finish-job.js';
import { readJobData } from './job-data-schema.js';
import { abortOpenGates } from '../engine/gate-step.js';
import { createJobRuntime, type EngineDeps, type JobRuntime } from './job-runtime.js';
import { cleanupFor, controlHookFor, stepFor } from './step-registry.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import { mention } from '../../src/report/format-text.js';
import { nextGuardDueInMs, watchGuards } from './guard-watch.js';
import { runGuardHold } from './guard-hold.js';

/**
 * The BullMQ processor of an upgrade job: runs the planned steps from job.data.stepIndex on, checking pause and
 * abort at the safe point before each step. Waiting (a gate, a pause, a transient-error backoff, a worker shutting
 * down) never holds a worker slot: the job moves itself to delayed and throws DelayedError, and comes back — on
 * any worker — to carry on from job.data.
 */
export const MAX_TRANSIENT_RETRIES = 8;
/** The engine's own retries of transient AWS and Kubernetes failures: 2 s, 4 s, 8 s … up to 2 minutes. */
export const TRANSIENT_BACKOFF = { baseMs: 2_000, maxMs: 120_000 };
/**
 * The retries count failures in a row, not over a step's whole life: a run of the step that got calls through and
 * kept going this long (the bot's clock) before the next transient failure has made headway, and that failure
 * counts as the first again. A node-group step that polls for an hour while AWS drops one call in fifty must not
 * run out of retries, while an outage (nothing gets through) still ends the step after MAX_TRANSIENT_RETRIES.
 */
export const TRANSIENT_HEADWAY_MS = 10_000;

export interface UpgradeJobResult {
  state: UpgradeJobData['state'];
  outcome?: string;
}

export function createUpgradeProcessor(deps: EngineDeps, draining: AbortSignal) {
  const refuse = (job: Job<UpgradeJobData>, token: string | undefined, reason: string) => refuseJob(deps, job, token, reason);
  return async function processUpgrade(job: Job<UpgradeJobData>, token?: string, cancel?: AbortSignal): Promise<UpgradeJobResult> {
    // One signal per run, linked to the worker's shutdown and BullMQ's cancel and unlinked afterwards, so the
    // long-lived shutdown signal does not collect a listener per run (AbortSignal.any would).
    const run = new AbortController();
    const stop = () => run.abort(draining.reason ?? cancel?.reason);
    if (draining.aborted || cancel?.aborted) stop();
    draining.addEventListener('abort', stop, { once: true });
    cancel?.addEventListener('abort', stop, { once: true });
    try {
      return await runJob(job, token, run.signal);
    } finally {
      draining.removeEventListener('abort', stop);
      cancel?.removeEventListener('abort', stop);
    }
  };

  async function runJob(job: Job<UpgradeJobData>, token: string | undefined, signal: AbortSignal): Promise<UpgradeJobResult> {
    const reading = readJobData(job.data);
    if (!reading.ok) return refuse(job, token, reading.reason);
    if (reading.upgradedFrom !== undefined) deps.logger.info({ jobId: job.id, from: reading.upgradedFrom }, 'job data upgraded from an older worker\'s schema');
    const runtime = createJobRuntime(job, deps);
    const { data } = runtime;
    if (isTerminal(data.state)) {
      // Finished before, but the process died before BullMQ heard: finish again (idempotent) and complete.
      await finishJob(runtime, data.state as 'succeeded', data.outcomeText ?? `The upgrade ended ${data.state}.`);
      return { state: data.state, outcome: data.outcomeText };
    }

    async function park(delayMs: number, wakeEarly?: () => Promise<boolean>): Promise<never> {
      await runtime.save();
      await job.moveToDelayed(Date.now() + wallMsOf(deps.clock, delayMs), token);
      // An answer that arrived between our last read and the move could not promote an active job: check again.
      if (wakeEarly && (await wakeEarly())) await job.promote().catch(() => undefined);
      throw new DelayedError();
    }

    try {
      if (data.state === 'queued') {
        data.state = 'running';
        await runtime.save();
        await runtime.card();
      }
      for (;;) {
        const step = data.steps[data.stepIndex];
        // The guards due are read at every safe point (a breach opens a hold: jobs/worker/guard-watch.ts).
        await watchGuards(runtime);
        const controls = await deps.controls.read(data.jobId);
        if (controls.abort) {
          if (step) {
            const ctx = runtime.contextFor(step, signal);
            await abortOpenGates(ctx, controls.abort.by, controls.abort.at);
            await cleanupFor(step.kind)?.(ctx);
          }
          const where = step ? ` before step "${step.title}"` : '';
          await runtime.emitKeyed(`${data.jobId}:aborted`, `${data.jobId}:aborted`, {
            kind: 'note', at: deps.clock.now(), level: 'warning', text: `Aborted by ${mention(controls.abort.by)}${where}. Nothing further was changed.`,
          });
          await finishJob(runtime, 'aborted', `Aborted by ${mention(controls.abort.by)}${where}.`);
          return { state: 'aborted', outcome: data.outcomeText };
        }
        if (data.guards?.hold && step) {
          const held = await runGuardHold(runtime, step, controls, signal);
          if (held.kind === 'abort') {
            // As an Abort at a safe point: put back what the step changed for the upgrade (Karpenter budgets).
            await cleanupFor(step.kind)?.(runtime.contextFor(step, signal));
            await finishJob(runtime, 'aborted', `Aborted: ${held.reason}.`);
            return { state: 'aborted', outcome: data.outcomeText };
          }
          if (held.kind === 'park') await park(held.delayMs, held.wakeEarly);
          continue;
        }
        if (controls.paused) {
          if (step) await controlHookFor(step.kind)?.(runtime.contextFor(step, signal), controls);
          await markPaused(runtime, controls, step);
          await park(PAUSE_RECHECK_MS, async () => {
            const latest = await deps.controls.read(data.jobId);
            return !latest.paused || !!latest.abort;
          });
        }
        if (data.state === 'paused') {
          data.state = 'running';
          await runtime.save();
          await runtime.card();
          await runtime.emitKeyed(`${data.jobId}:resume:${data.pauseSeq}`, `${data.jobId}:resume:${data.pauseSeq}`, {
            kind: 'note', at: deps.clock.now(), level: 'info', text: `Resumed by ${mention(controls.resumedBy ?? 'someone')}.`,
          });
        }
        if (!step) {
          await finishJob(runtime, 'succeeded', successText(data));
          return { state: 'succeeded', outcome: data.outcomeText };
        }
        const result = await runStep(runtime, step, signal);
        if (result.outcome === 'wait') {
          // A step that stopped for a guard's hold: the breach card comes at once, not after the step's wait.
          if (data.guards?.hold) continue;
          // A step that parks because of a pause (Karpenter sets its budgets to 0 first) shows as paused at once.
          const latest = await deps.controls.read(data.jobId);
          if (latest.paused) await markPaused(runtime, latest, step);
          // Guards are evaluated each interval while the job acts, so a parked job comes back at least that often; one
          // waiting for an approver need not (its Continue reads the guards again), nor spend BullMQ's restarts on it.
          const guardDue = data.state === 'waiting-approval' ? undefined : nextGuardDueInMs(runtime);
          await park(Math.min(result.delayMs, guardDue ?? result.delayMs), result.wakeEarly);
        }
        if (result.outcome === 'abort') {
          await finishJob(runtime, 'aborted', `Aborted: ${result.reason}.`);
          return { state: 'aborted', outcome: data.outcomeText };
        }
      }
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      if (signal.aborted && !(error instanceof StepFailure)) {
        // The worker is shutting down (or the job was cancelled): park at once so another worker carries on.
        deps.logger.info({ jobId: data.jobId }, 'worker closing: parking the upgrade job for another worker');
        await park(0);
      }
      return handleFailure(runtime, error, park);
    }
  }
}

/** How long a job this worker cannot read waits before a worker (hopefully of the right version) looks again. */
export const UNREADABLE_RECHECK_MS = 60_000;

/**
 * A job whose data this worker cannot read (written by a newer version mid-deploy): say so once in its thread, touch
 * nothing, and hand it back to the queue for another worker.
 */
async function refuseJob(deps: EngineDeps, job: Job<UpgradeJobData>, token: string | undefined, reason: string): Promise<never> {
  const raw = job.data as Partial<UpgradeJobData>;
  deps.logger.warn({ jobId: job.id, schema: raw.schema }, 'upgrade job written by another worker version; leaving it alone');
  if (raw.thread?.ts) {
    const key = `${job.id}:schema:${String(raw.schema)}`;
    await deps.thread
      .postEvent(raw.thread, key, { kind: 'note', at: deps.clock.now(), level: 'warning', text: `A worker of another version picked this job up and left it alone: ${reason}.` })
      .catch((error: unknown) => deps.logger.warn({ err: error, jobId: job.id }, 'posting the schema refusal failed'));
  }
  await job.moveToDelayed(Date.now() + wallMsOf(deps.clock, UNREADABLE_RECHECK_MS), token);
  throw new DelayedError();
}

async function markPaused(runtime: JobRuntime, controls: JobControls, step: PlannedStep | undefined): Promise<void> {
  const { data, deps } = runtime;
  if (data.state === 'paused' && data.pauseSeq >= controls.pauseSeq) return;
  data.pauseSeq = controls.pauseSeq;
  data.state = 'paused';
  await runtime.save();
  await runtime.card();
  await runtime.emitKeyed(`${data.jobId}:pause:${controls.pauseSeq}`, `${data.jobId}:pause:${controls.pauseSeq}`, {
    kind: 'note', at: deps.clock.now(), level: 'info',
    text: `Paused by ${mention(controls.pausedBy ?? 'someone')}${step ? ` at step "${step.title}"` : ''}. Resume to carry on.`,
  });
}

function successText(data: UpgradeJobData): string {
  if (data.dryRun) return `Dry run of ${data.cluster} ${data.from} → ${data.to} finished; nothing was changed.`;
  if (data.rollback) return `${data.cluster} is rolled back from ${data.from} to ${data.to}.`;
  return `${data.cluster} is upgraded from ${data.from} to ${data.to}.`;
}

async function runStep(runtime: JobRuntime, step: PlannedStep, signal: AbortSignal): Promise<StepResult> {
  const { data, deps } = runtime;
  if (!data.stepRuns[step.id]) {
    data.stepRuns[step.id] = { startedAt: deps.clock.now() };
    if (data.state !== 'running') data.state = 'running';
    await runtime.save();
    await runtime.card();
  }
  const started = data.stepRuns[step.id].startedAt;
  runtime.headway.restart();
  await runtime.emitKeyed(`${data.jobId}:${step.id}:started`, `${data.jobId}:${step.id}:started`, {
    kind: 'step-started', at: started, step: step.id, title: step.title,
  });
  const result = await stepFor(step.kind)(runtime.contextFor(step, signal));
  if (result.outcome === 'wait' || result.outcome === 'abort') return result;

  const now = deps.clock.now();
  const run = data.stepRuns[step.id];
  Object.assign(run, { finishedAt: now, durationMs: now - started, outcome: result.outcome, summary: result.summary });
  deps.metrics.observeStepSeconds(step.kind, result.outcome, (now - started) / 1000);
  data.stepIndex += 1;
  data.state = 'running';
  data.progress = undefined;
  delete data.retries[step.id];
  // The thread is told before the job saves that it moved on: a worker that dies in between leaves the step to run
  // again (steps adopt what they already did, and the keyed end is queued once), never a step whose end the thread
  // never hears of (kill point "step ended, its end not yet in the thread").
  await runtime.emitKeyed(`${data.jobId}:${step.id}:finished`, `${data.jobId}:${step.id}:finished`, {
    kind: 'step-finished', at: now, step: step.id, title: step.title, durationMs: now - started, summary: result.summary,
  });
  await runtime.save();
  await runtime.card();
  return result;
}

async function handleFailure(runtime: JobRuntime, error: unknown, park: (ms: number) => Promise<never>): Promise<never> {
  const { data, deps } = runtime;
  const step = data.steps[data.stepIndex];
  const stepId = step?.id ?? 'job';
  if (!(error instanceof StepFailure) && isTransientError(error)) {
    const workedMs = deps.clock.now() - runtime.headway.since();
    const attempt = transientAttempt(data.retries[stepId] ?? 0, { succeededCalls: runtime.headway.successes(), workedMs }, TRANSIENT_HEADWAY_MS);
    if (attempt <= MAX_TRANSIENT_RETRIES) {
      data.retries[stepId] = attempt;
      const delay = backoffMs(attempt - 1, TRANSIENT_BACKOFF);
      deps.logger.warn({ err: error, jobId: data.jobId, step: stepId, attempt, delay, succeededCalls: runtime.headway.successes(), workedMs }, 'transient failure; retrying the step');
      if (attempt === 3) {
        await runtime.emitKeyed(`${data.jobId}:${stepId}:transient`, `${data.jobId}:${stepId}:transient`, {
          kind: 'note', at: deps.clock.now(), level: 'warning',
          text: `${step?.title ?? 'The job'} keeps hitting a temporary error (${describeError(error)}); retrying with backoff.`,
        });
      }
      return park(delay);
    }
  }
  const message = error instanceof StepFailure ? error.message : `${step ? `Step "${step.title}"` : 'The upgrade job'} failed: ${describeError(error)}`;
  const remedy =
    error instanceof StepFailure
      ? error.remedy
      : isTransientError(error)
        ? `AWS kept failing after ${MAX_TRANSIENT_RETRIES} retries; check the service health, then start the upgrade again (it resumes from the cluster's state)`
        : (accessDeniedRemedy(error) ?? 'check the error above, fix its cause, then start the upgrade again');
  deps.logger.error({ err: error, jobId: data.jobId, step: stepId }, 'upgrade step failed');
  if (step) {
    // Put back what the step changed for the upgrade only (Karpenter budgets); best effort, the failure stands.
    await cleanupFor(step.kind)?.(runtime.contextFor(step, new AbortController().signal)).catch((cleanupError: unknown) =>
      deps.logger.error({ err: cleanupError, jobId: data.jobId, step: stepId }, 'cleaning up after a failed step failed'),
    );
  }
  if (step) {
    const startedAt = data.stepRuns[step.id]?.startedAt;
    if (startedAt !== undefined) deps.metrics.observeStepSeconds(step.kind, 'failed', (deps.clock.now() - startedAt) / 1000);
    await runtime.emitKeyed(`${data.jobId}:${step.id}:failed`, `${data.jobId}:${step.id}:failed`, {
      kind: 'step-failed', at: deps.clock.now(), step: step.id, title: step.title, error: message, remedy,
      // A failed verify after a control-plane upgrade: Roll back is offered next to the findings (issue 10).
      ...(step.kind === 'verify' && rollbackOfferOf(data) ? { rollback: rollbackOfferOf(data) } : {}),
    });
  }
  await finishJob(runtime, 'failed', `${message}${remedy ? ` What to do: ${remedy}.` : ''}`);
  throw new UnrecoverableError(message);
}
