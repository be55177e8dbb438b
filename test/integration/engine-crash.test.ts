import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineHarness, startEngineWorkerProcess, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * A worker process killed with SIGKILL while it follows the control-plane update: its job comes back as stalled,
 * another worker picks it up from job.data, follows the update it recorded, and finishes — with exactly one
 * UpdateClusterVersion in the simulator's log.
 */
let h: EngineHarness;
let child: ChildProcess | undefined;
beforeEach(async () => {
  // Speed 150: the 10-minute update takes 4 s, long enough to kill the worker in the middle of it.
  h = await startEngineHarness({ speed: 150, stepKinds: ['preflight', 'gate', 'control-plane', 'verify'] });
});
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await h.close();
});

const startWorkerProcess = (): Promise<ChildProcess> => startEngineWorkerProcess(h);

describe('upgrade engine: crash safety', () => {
  it('finishes the upgrade on another worker after SIGKILL mid-update, without a second UpdateClusterVersion', async () => {
    child = await startWorkerProcess();
    const web = h.engine(); // this process only enqueues and answers, like the web role
    const control = web.control;
    const { job } = await h.start(control, h.request(), '1.30');
    await waitForJobState(web, job.jobId, ['waiting-approval']);
    expect(await control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' })).toEqual({ outcome: 'accepted' });
    await until(() => h.calls('UpdateClusterVersion').length === 1, 'the update to be issued');
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(h.sim.world.cluster('demo')!.status).toBe('UPDATING');

    const survivor = h.engine({ worker: { lockDurationMs: 2_000, stalledIntervalMs: 1_000 } });
    await survivor.startWorker();
    const done = await waitForJobState(survivor, job.jobId, ['succeeded', 'failed', 'aborted'], 45_000);
    expect(done.state).toBe('succeeded');
    expect(h.sim.world.cluster('demo')!.version).toBe('1.31');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(await control.findActive('demo')).toBeUndefined();
  }, 90_000);
});
