import type { Job } from 'bullmq';
import type { StartIntent } from './cluster-lock.js';
import type { GateStore } from './gate-store.js';
import type { JobControlsStore } from './job-controls-store.js';
import type { UpgradeState } from '../ports/timeline-event.js';
import type { JobSummary } from '../ports/upgrade-control.js';
import { currentStepOf, currentStepTitle, isTerminal, type UpgradeJobData } from '../planning/upgrade-job-data.js';

/**
 * A job as the Slack surface sees it (JobSummary), built from the job data the processor saved, BullMQ's own state
 * (a job BullMQ failed by itself — stalled too often — never got to write 'failed') and the control flags, which
 * show a Pause the instant it is pressed even while the job is parked.
 */
export function effectiveState(data: UpgradeJobData, bullState: string, paused: boolean): UpgradeState {
  if (isTerminal(data.state)) return data.state;
  if (bullState === 'failed') return 'failed';
  if (bullState === 'completed') return data.state === 'queued' ? 'failed' : data.state;
  if (paused) return 'paused';
  return data.state;
}

export async function summarizeJob(
  job: Job<UpgradeJobData>,
  stores: { gates: GateStore; controls: JobControlsStore },
): Promise<JobSummary> {
  const data = job.data;
  const [bullState, controls] = await Promise.all([job.getState(), stores.controls.read(data.jobId)]);
  const state = effectiveState(data, bullState, controls.paused);
  const summary: JobSummary = {
    jobId: data.jobId,
    cluster: data.cluster,
    from: data.from,
    to: data.to,
    state,
    currentStep: currentStepTitle(data),
    requestedBy: data.requestedBy,
    thread: data.thread,
    startedAt: data.startedAt,
    finishedAt: data.finishedAt ?? (isTerminal(state) ? job.finishedOn : undefined),
    dryRun: data.dryRun,
  };
  if (!isTerminal(state)) {
    const step = currentStepOf(data);
    for (const [key, value] of Object.entries((step && data.stepState[step.id]) ?? {})) {
      if (!key.startsWith('gate:')) continue;
      const revision = (value as { revision?: number }).revision;
      const record = await stores.gates.read(data.jobId, key.slice('gate:'.length));
      if (record && record.state === 'open' && record.gate.revision === revision) {
        summary.openGate = { gateId: record.gate.gateId, revision: record.gate.revision, title: record.gate.title };
      }
    }
  }
  return summary;
}

/** A job still being enqueued (lock taken, thread opening): enough to refuse a second start meaningfully. */
export function summarizeIntent(intent: StartIntent): JobSummary {
  return {
    jobId: intent.jobId,
    cluster: intent.cluster,
    from: intent.from,
    to: intent.to,
    state: 'queued',
    currentStep: 'starting',
    requestedBy: intent.requestedBy,
    thread: { channel: intent.channel, ts: '' },
    startedAt: intent.at,
    dryRun: intent.dryRun,
  };
}
