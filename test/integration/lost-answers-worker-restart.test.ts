import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';
import { startEngineHarness, startEngineWorkerProcess, startStandbyWorkerProcess, type EngineHarness } from './engine-harness.js';
import { REFRESH, REFRESH_CLUSTERS, TABLE } from './lost-answers-table.js';

/**
 * The third way of lost-answers.test.ts (the table: lost-answers-table.ts): the worker process is SIGKILLed as the
 * answer is lost and another one takes the job over; the upgrade ends Succeeded, each action taken once.
 */
let h: EngineHarness | undefined;
let child: ChildProcess | undefined;
let standby: ReturnType<typeof startStandbyWorkerProcess> | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  const spare = await standby?.catch(() => undefined);
  if (spare && spare.proc.exitCode === null) spare.proc.kill('SIGKILL');
  standby = undefined;
  await h?.close();
  h = undefined;
});

describe('every mutating action of the IAM policy, its answer lost', () => {
  it('a worker restart (the worker killed as the answer is lost): eks:UpdateClusterVersion and the instance-refresh actions', async () => {
    const rows = Object.entries(TABLE).filter(([, row]) => row.world === 'refresh');
    const actions = ['UpdateClusterVersion', ...rows.map(([, row]) => row.action)];
    h = await startEngineHarness({ scenario: 'self-managed-refresh', speed: 600, config: REFRESH });
    h.sim.world.faults.dropAnswers = Object.fromEntries(actions.map((a) => [a, 1]));
    const env = { ENGINE_CLUSTERS_JSON: JSON.stringify(REFRESH_CLUSTERS), ENGINE_STEP_KINDS: 'preflight,gate,control-plane,self-managed,verify' };
    child = await startEngineWorkerProcess(h, env);
    // The replacement boots while this worker runs (a second replica), so each kill is answered at once.
    standby = startStandbyWorkerProcess(h, env);
    // This engine starts no worker: it only starts the job and answers its gate, as the web process does.
    const control = h.engine().control;
    const queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    const redis = new Redis(redisUrl);
    closers.push(() => queue.close(), async () => void (await redis.quit()));
    // The token of the worker holding the job (BullMQ's lock key `<prefix>:<queue>:<job>:lock`), null while nobody does.
    const lockOf = (jobId: string) => redis.get(`${h!.prefix}:${UPGRADE_QUEUE}:${jobId}:lock`);
    const { job } = await h.start(control, h.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
    let killed = 0;
    const deadline = Date.now() + 200_000;
    for (;;) {
      const now = await control.getJob(job.jobId);
      if (now && ['succeeded', 'failed', 'aborted'].includes(now.state)) break;
      if (Date.now() > deadline) throw new Error(`the upgrade did not end; it is ${now?.state} at ${now?.currentStep}`);
      if (h.sim.world.faults.injected.droppedAnswers.length > killed) {
        killed = h.sim.world.faults.injected.droppedAnswers.length;
        const lockOfKilled = await lockOf(job.jobId);
        child.kill('SIGKILL');
        // A worker pod restarts in seconds of the cluster's time. At 600× the few real seconds BullMQ takes to see the
        // old lock lapse (and a loaded machine to boot a process) would be an hour of it, past the drain hook's
        // 30-minute heartbeat: Auto Scaling would go on without the bot and CompleteLifecycleAction never be made (the
        // test failed so under load). The world runs at real speed until the new worker has taken the job back.
        h.sim.world.clock.setSpeed!(1);
        const next = await standby!;
        standby = startStandbyWorkerProcess(h, env);
        child = await next.takeJobs();
        let state: string | undefined;
        await until(async () => {
          state = await (await queue.getJob(job.jobId))?.getState();
          const lock = await lockOf(job.jobId);
          return (state === 'active' && lock !== null && lock !== lockOfKilled) || state === 'delayed' || state === 'completed' || state === 'failed';
        }, () => `the new worker to take the job back (BullMQ has it ${state})`, 60_000);
        h.sim.world.clock.setSpeed!(600);
      }
      if (now?.openGate) await control.answerGate({ jobId: job.jobId, gateId: now.openGate.gateId, revision: now.openGate.revision, action: 'continue', userId: 'U0APP' });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const done = await control.getJob(job.jobId);
    expect(done?.state).toBe('succeeded');
    expect([...h.sim.world.faults.injected.droppedAnswers].sort()).toEqual([...actions].sort());
    expect(h.calls('UpdateClusterVersion').filter((c) => !c.error)).toHaveLength(1);
    expect(h.calls('StartInstanceRefresh').filter((c) => !c.error)).toHaveLength(1);
    expect(h.sim.world.autoScalingGroups.get('gpu-batch-asg')!.lifecycleHooks).toEqual([]);
  }, 300_000);
});
