import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GateModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Issue 2's job end to end: preflight → gate → control plane → verify, through the real EKS SDK and client-node
 * against the simulator (demo: 1.30, a control-plane update takes 10 simulated minutes = 1 s at speed 600), on a
 * real Redis and BullMQ, with a recording thread.
 */
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness({ stepKinds: ['preflight', 'gate', 'control-plane', 'verify'] });
});
afterEach(async () => {
  await h.close();
});

const openedGates = (h: EngineHarness) => h.thread.events('gate-opened') as Array<Extract<TimelineEvent, { kind: 'gate-opened' }>>;
async function gateOpened(h: EngineHarness): Promise<GateModel> {
  await h.thread.waitFor((posts) => posts.some((p) => p.event.kind === 'gate-opened'), 20_000, 'the gate card');
  return openedGates(h)[0].gate;
}

describe('upgrade engine: gated control-plane upgrade against the simulator', () => {
  it('upgrades demo to 1.31 after Continue, with exactly one UpdateClusterVersion and one running job per cluster', async () => {
    const engine = h.engine();
    await engine.startWorker();
    const started = await h.start(engine.control, h.request(), '1.30');
    expect(started.ok).toBe(true);
    const jobId = started.job.jobId;
    expect(h.thread.threads).toHaveLength(1);
    expect(started.job.thread).toEqual(h.thread.threads[0].ref);

    const second = await h.start(engine.control, h.request({ requestedBy: 'U0OTHER' }), '1.30');
    expect(second).toMatchObject({ ok: false, reason: 'already-running', job: { jobId, thread: started.job.thread } });
    expect(h.thread.threads).toHaveLength(1);

    const gate = await gateOpened(h);
    expect(gate).toMatchObject({ jobId, gateId: 'h1-control-plane', revision: 1, title: 'Upgrade the control plane of demo to 1.31?', actions: ['continue', 'abort'] });
    const waiting = await waitForJobState(engine, jobId, ['waiting-approval']);
    expect(waiting.openGate).toEqual({ gateId: 'h1-control-plane', revision: 1, title: gate.title });
    expect(h.calls('UpdateClusterVersion')).toHaveLength(0);

    expect(await engine.control.answerGate({ jobId, gateId: gate.gateId, revision: 0, action: 'continue', userId: 'U0APP' })).toEqual({ outcome: 'stale' });
    expect(await engine.control.answerGate({ jobId: 'nope', gateId: gate.gateId, revision: 1, action: 'continue', userId: 'U0APP' })).toEqual({ outcome: 'unknown-job' });
    expect(await engine.control.answerGate({ jobId, gateId: gate.gateId, revision: 1, action: 'continue', userId: 'U0APP' })).toEqual({ outcome: 'accepted' });
    expect(await engine.control.answerGate({ jobId, gateId: gate.gateId, revision: 1, action: 'abort', userId: 'U0APP2' })).toMatchObject({
      outcome: 'already-answered', by: 'U0APP', action: 'continue',
    });

    const done = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted']);
    expect(done.state).toBe('succeeded');
    const cluster = h.sim.world.cluster('demo')!;
    expect(cluster.version).toBe('1.31');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);

    // The thread: the gate card answered once (same key as the card), each step started and finished once, a summary.
    const answered = h.thread.posts.filter((p) => p.event.kind === 'gate-answered');
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ key: `${jobId}:h1-control-plane:1`, event: { action: 'continue', by: 'U0APP' } });
    const finished = h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? e.title : ''));
    expect(finished).toEqual(['preflight for 1.31', 'approval: control plane of demo to 1.31', 'control plane to 1.31', 'verify 1.31']);
    // In the thread each step is one message, edited in place from ▶️ started to ✅ with its duration.
    expect(h.thread.stepMessages().map((m) => [m.title, m.state])).toEqual(finished.map((title) => [title, 'done']));
    expect(h.thread.stepMessages().every((m) => typeof m.durationMs === 'number' && m.durationMs >= 0)).toBe(true);
    // …except the gate's, posted once answered so that it comes after the gate card it answers (issue 25).
    const firstStates = [...h.thread.stepVersions.values()].map((versions) => [versions[0].title, versions[0].state, versions[0].progress]);
    expect(firstStates).toEqual(finished.map((title) => [title, title.startsWith('approval:') ? 'done' : 'running', undefined]));
    const summary = h.thread.events('summary')[0];
    expect(summary).toMatchObject({ kind: 'summary', state: 'succeeded', from: '1.30', to: '1.31' });
    expect(summary.kind === 'summary' && summary.steps.map((s) => s.title)).toHaveLength(4);
    expect(h.thread.lastCard()).toMatchObject({ state: 'succeeded', currentStep: 'done', from: '1.30', to: '1.31' });
    expect(h.thread.uploads).toHaveLength(1);
    expect(h.thread.uploads[0].content).toMatch(/demo 1\.30 → 1\.31/);

    // The lock is released: nothing active, and the next hop may start.
    expect(await engine.control.findActive('demo')).toBeUndefined();
    expect((await engine.control.listJobs('demo')).map((j) => [j.jobId, j.state])).toEqual([[jobId, 'succeeded']]);
  });

  it('reports a failed control-plane update with the AWS error code and message, and fails the job', async () => {
    const response = await fetch(`${h.sim.url}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failNextClusterUpdate: { cluster: 'demo', errorCode: 'IpNotAvailable', errorMessage: 'Subnets have insufficient free IP addresses' } }),
    });
    expect(response.ok).toBe(true);
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const gate = await gateOpened(h);
    await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: gate.revision, action: 'continue', userId: 'U0APP' });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted']);
    expect(ended.state).toBe('failed');
    const failed = h.thread.events('step-failed')[0];
    expect(failed).toMatchObject({ kind: 'step-failed', step: 'h1-control-plane' });
    expect(failed.kind === 'step-failed' && failed.error).toMatch(/^Upgrading the control plane of demo to 1.31 failed \(update .+ ended Failed\): IpNotAvailable: /);
    expect(failed.kind === 'step-failed' && failed.remedy).toMatch(/free IP addresses/);
    // The step's own message ends ❌ with the reason; the failure reply above carries what to do.
    expect(h.thread.stepMessage('h1-control-plane')).toMatchObject({ state: 'failed', error: failed.kind === 'step-failed' ? failed.error : '' });
    expect(h.thread.events('summary')[0]).toMatchObject({ state: 'failed' });
    expect(h.sim.world.cluster('demo')!.version).toBe('1.30');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(await engine.control.findActive('demo')).toBeUndefined();
  });

  it('resumes on a new worker after the first one closes mid-update, without a second UpdateClusterVersion', async () => {
    const first = h.engine();
    await first.startWorker();
    const { job } = await h.start(first.control, h.request(), '1.30');
    const gate = await gateOpened(h);
    await first.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: 1, action: 'continue', userId: 'U0APP' });
    await h.thread.waitFor((posts) => posts.some((p) => p.key === `${job.jobId}:h1-control-plane:issued`), 10_000, 'UpdateClusterVersion issued');
    await first.close();
    expect(h.sim.world.cluster('demo')!.status).toBe('UPDATING');

    const second = h.engine();
    await second.startWorker();
    const done = await waitForJobState(second, job.jobId, ['succeeded', 'failed', 'aborted']);
    expect(done.state).toBe('succeeded');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(h.sim.world.cluster('demo')!.version).toBe('1.31');
    // Nothing was posted twice across the two workers.
    const keys = h.thread.posts.map((p) => `${p.event.kind}:${p.key}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(h.thread.events('step-started').filter((e) => e.kind === 'step-started' && e.step === 'h1-control-plane')).toHaveLength(1);
  });

  it('ends as aborted, changing nothing, when an approver chooses Abort at the gate', async () => {
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const gate = await gateOpened(h);
    expect(await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: 1, action: 'abort', userId: 'U0APP' })).toEqual({ outcome: 'accepted' });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted']);
    expect(ended.state).toBe('aborted');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(0);
    const summary = h.thread.events('summary')[0];
    expect(summary.kind === 'summary' && summary.lines[0]).toMatch(/Aborted: <@U0APP> chose Abort at "Upgrade the control plane of demo to 1.31\?"/);
    expect(await engine.control.findActive('demo')).toBeUndefined();
    expect(await engine.control.abort(job.jobId, 'U0APP')).toMatchObject({ ok: false, message: expect.stringMatching(/already aborted; there is nothing to abort/) });
  });

  it('pauses and resumes at a safe point, and the abort command closes the open gate', async () => {
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const gate = await gateOpened(h);
    const paused = await engine.control.pause(job.jobId, 'U0APP');
    expect(paused).toEqual({ ok: true, message: "Paused demo's upgrade at step 'approval: control plane of demo to 1.31'. The open gate can still be answered; the job waits after it until resumed." });
    expect(await engine.control.pause(job.jobId, 'U0APP')).toMatchObject({ ok: false, message: expect.stringMatching(/already paused/) });
    await waitForJobState(engine, job.jobId, ['paused']);
    await h.thread.waitFor((posts) => posts.some((p) => p.key === `${job.jobId}:pause:1`), 10_000, 'the pause note');
    expect(h.thread.lastCard()?.state).toBe('paused');

    expect(await engine.control.resume(job.jobId, 'U0APP')).toMatchObject({ ok: true });
    await h.thread.waitFor((posts) => posts.some((p) => p.key === `${job.jobId}:resume:1`), 10_000, 'the resume note');
    await waitForJobState(engine, job.jobId, ['waiting-approval']);

    expect(await engine.control.abort(job.jobId, 'U0APP')).toMatchObject({ ok: true, message: expect.stringMatching(/^Aborting demo's upgrade at step/) });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted']);
    expect(ended.state).toBe('aborted');
    const answered = h.thread.posts.find((p) => p.event.kind === 'gate-answered');
    expect(answered).toMatchObject({ key: `${job.jobId}:${gate.gateId}:1`, event: { action: 'abort', by: 'U0APP' } });
    expect(await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: 1, action: 'continue', userId: 'U0APP' })).toMatchObject({ outcome: 'already-answered', action: 'abort' });
    expect(h.calls('UpdateClusterVersion')).toHaveLength(0);
  });

  it('dry run walks every step, reports what it would do, and changes nothing', async () => {
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ dryRun: true, to: '1.32' }), '1.30');
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted']);
    expect(ended.state).toBe('succeeded');
    expect(h.sim.world.calls).toHaveLength(0);
    const summaries = h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? e.summary : ''));
    expect(summaries).toContain('would call UpdateClusterVersion demo → 1.31, then follow DescribeUpdate until it ends (about 10 minutes)');
    expect(summaries).toContain('would call UpdateClusterVersion demo → 1.32, then follow DescribeUpdate until it ends (about 10 minutes)');
    expect(openedGates(h)).toHaveLength(0);
    const summary = h.thread.events('summary')[0];
    expect(summary.kind === 'summary' && summary.lines).toContain('This was a dry run: nothing was changed.');
  });
});
