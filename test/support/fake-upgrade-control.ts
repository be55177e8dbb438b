import type { UpgradeState } from '../../src/ports/timeline-event.js';
import type {
  ControlResult,
  GateAnswer,
  GateAnswerResult,
  JobSummary,
  StartRequest,
  StartResult,
  UpgradeControl,
} from '../../src/ports/upgrade-control.js';

/**
 * An in-memory UpgradeControl for Slack-surface tests: it keeps the engine's state rules (one active upgrade per
 * cluster, one answer per gate revision, stale revisions refused) and records every call, so tests can assert
 * what reached the engine — and that nothing did on bad input. The real engine is tested on its own.
 */
export interface FakeUpgradeControl extends UpgradeControl {
  calls: Array<{ method: keyof UpgradeControl; args: unknown[] }>;
  /** Mutating calls only (start, answerGate, pause, resume, abort). */
  mutations(): Array<{ method: keyof UpgradeControl; args: unknown[] }>;
  /** Makes `gateId` the job's open gate at `revision` (state waiting-approval). */
  openGate(jobId: string, gateId: string, revision?: number, title?: string): void;
  /** Adds a job as if it had been started earlier. */
  seed(job: Partial<JobSummary> & { cluster: string }): JobSummary;
}

const ACTIVE: UpgradeState[] = ['queued', 'running', 'waiting-approval', 'paused'];

export function createFakeUpgradeControl(options: { now?: () => number } = {}): FakeUpgradeControl {
  const now = options.now ?? (() => Date.now());
  const jobs = new Map<string, JobSummary>();
  const answers = new Map<string, { by: string; action: GateAnswer['action']; at: number }>();
  const calls: FakeUpgradeControl['calls'] = [];
  let sequence = 0;

  const record = (method: keyof UpgradeControl, ...args: unknown[]) => calls.push({ method, args });
  const active = (cluster: string) => [...jobs.values()].find((job) => job.cluster === cluster && ACTIVE.includes(job.state));

  function seed(partial: Partial<JobSummary> & { cluster: string }): JobSummary {
    sequence++;
    const job: JobSummary = {
      jobId: `job-${sequence}`,
      from: '1.30',
      to: '1.31',
      state: 'running',
      currentStep: 'preflight',
      requestedBy: 'U0REQ',
      thread: { channel: 'C0DEMO', ts: `1700000000.00000${sequence}` },
      startedAt: now(),
      dryRun: false,
      ...partial,
    };
    jobs.set(job.jobId, job);
    return job;
  }

  const control: FakeUpgradeControl = {
    calls,
    mutations: () => calls.filter((call) => ['start', 'answerGate', 'pause', 'resume', 'abort'].includes(call.method)),
    seed,
    openGate(jobId, gateId, revision = 1, title = 'Upgrade the control plane?') {
      const job = jobs.get(jobId)!;
      job.openGate = { gateId, revision, title };
      job.state = 'waiting-approval';
      job.currentStep = gateId;
    },
    async start(request: StartRequest, from: string): Promise<StartResult> {
      record('start', request, from);
      const running = active(request.cluster);
      if (running) return { ok: false, reason: 'already-running', job: { ...running } };
      const job = seed({
        cluster: request.cluster,
        from,
        to: request.to,
        requestedBy: request.requestedBy,
        dryRun: request.dryRun,
        thread: { channel: request.channel, ts: `1700000100.00000${sequence + 1}` },
      });
      return { ok: true, job: { ...job } };
    },
    async getJob(jobId) {
      record('getJob', jobId);
      const job = jobs.get(jobId);
      return job ? { ...job } : undefined;
    },
    async findActive(cluster) {
      record('findActive', cluster);
      const job = active(cluster);
      return job ? { ...job } : undefined;
    },
    async listJobs(cluster, limit = 20) {
      record('listJobs', cluster, limit);
      return [...jobs.values()]
        .filter((job) => !cluster || job.cluster === cluster)
        .sort((a, b) => b.startedAt - a.startedAt)
        .slice(0, limit)
        .map((job) => ({ ...job }));
    },
    async answerGate(answer: GateAnswer): Promise<GateAnswerResult> {
      record('answerGate', answer);
      const job = jobs.get(answer.jobId);
      if (!job) return { outcome: 'unknown-job' };
      const key = `${answer.jobId}:${answer.gateId}:${answer.revision}`;
      const previous = answers.get(key);
      if (previous) return { outcome: 'already-answered', ...previous };
      if (!job.openGate || job.openGate.gateId !== answer.gateId || job.openGate.revision !== answer.revision) return { outcome: 'stale' };
      answers.set(key, { by: answer.userId, action: answer.action, at: now() });
      job.openGate = undefined;
      job.state = answer.action === 'abort' ? 'aborted' : 'running';
      return { outcome: 'accepted' };
    },
    async pause(jobId, userId) {
      record('pause', jobId, userId);
      return transition(jobId, ['running', 'waiting-approval', 'queued'], 'paused', 'Paused');
    },
    async resume(jobId, userId) {
      record('resume', jobId, userId);
      return transition(jobId, ['paused'], 'running', 'Resumed');
    },
    async abort(jobId, userId) {
      record('abort', jobId, userId);
      return transition(jobId, ACTIVE, 'aborted', 'Aborting');
    },
    async exportTimeline(jobId, userId) {
      record('exportTimeline', jobId, userId);
      const job = jobs.get(jobId);
      return job ? { ok: true, message: `The timeline of ${job.cluster}'s upgrade is being uploaded into its thread.` } : { ok: false, message: `There is no job ${jobId}.` };
    },
  };

  function transition(jobId: string, from: UpgradeState[], to: UpgradeState, verb: string): ControlResult {
    const job = jobs.get(jobId);
    if (!job) return { ok: false, message: `There is no job ${jobId}.` };
    if (!from.includes(job.state)) return { ok: false, message: `The upgrade of ${job.cluster} is ${job.state}; nothing to do.` };
    job.state = to;
    if (to === 'aborted') job.finishedAt = now();
    return { ok: true, message: `${verb} the upgrade of ${job.cluster} (${job.from} → ${job.to}).` };
  }

  return control;
}
