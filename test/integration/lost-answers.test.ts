import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { GateAction, GateModel } from '../../src/ports/timeline-event.js';
import { decide } from '../../jobs/rehearse-upgrade.js';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';
import { startEngineHarness, startEngineWorkerProcess, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Issue 23 item 1: a step that finds its own earlier action already under way adopts it. Every mutating action of
 * deploy/iam/permissions-policy.json that an upgrade makes has its answer lost once (the simulator's `dropAnswers` fault: the
 * action is done, then the connection closes unanswered), through the real SDK:
 * - "the answer was lost": the SDK retries the call itself (maxAttempts 2) and gets "already under way" back;
 * - "a retry": the SDK gives up (maxAttempts 1), the step fails with a network error and the job runs it again.
 * - "a worker restart": the worker process is SIGKILLed as the answer is lost and another one takes the job over
 *   (the instance-refresh actions and UpdateClusterVersion here; the workshop's termination is
 *   engine-crash-self-managed.test.ts, its UpdateClusterVersion test/e2e/chaos-kill-points-short.test.ts).
 * Either way the upgrade ends Succeeded, each action taken once.
 */
interface Row {
  action: string;
  /** Why the upgrade does not make it, when it does not (an abort path only). */
  notMade?: string;
}

const IAM_POLICY = JSON.parse(readFileSync('deploy/iam/permissions-policy.json', 'utf8')) as { Statement: Array<{ Action: string[] }> };
// iam:SimulatePrincipalPolicy (doctor's optional statement) evaluates the policy and changes nothing.
const READS = /^(eks|ec2|autoscaling|ssm|sts|iam):(Describe|List|Get|AssumeRole|PassRole|Simulate)/;
const MUTATING = IAM_POLICY.Statement.flatMap((s) => s.Action).filter((action) => !READS.test(action));

const WORKSHOP = parseClustersConfig({ clusters: [{
  name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
  karpenter: { upgradeBudget: '1' },
  nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } },
}] });
const REFRESH_CLUSTERS = [{
  name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
  selfManaged: { 'gpu-batch*': { strategy: 'instance-refresh', minHealthyPercentage: 66 } },
}];
const REFRESH = parseClustersConfig({ clusters: REFRESH_CLUSTERS });

const WORLDS = {
  workshop: { scenario: 'workshop', config: WORKSHOP, cluster: 'eksworkshop-eksctl', from: '1.25', to: '1.26' },
  refresh: { scenario: 'self-managed-refresh', config: REFRESH, cluster: 'batch', from: '1.30', to: '1.31' },
} as const;

/** Which upgrade makes each mutating action; the table covers every one the IAM policy grants. */
const TABLE: Record<string, Row & { world?: keyof typeof WORLDS }> = {
  'eks:UpdateClusterVersion': { action: 'UpdateClusterVersion', world: 'workshop' },
  'eks:UpdateAddon': { action: 'UpdateAddon', world: 'workshop' },
  'eks:UpdateNodegroupVersion': { action: 'UpdateNodegroupVersion', world: 'workshop' },
  'eks:CreateNodegroup': { action: 'CreateNodegroup', world: 'workshop' },
  'eks:DeleteNodegroup': { action: 'DeleteNodegroup', world: 'workshop' },
  'ec2:CreateLaunchTemplateVersion': { action: 'CreateLaunchTemplateVersion', world: 'workshop' },
  'ec2:ModifyLaunchTemplate': { action: 'ModifyLaunchTemplate', world: 'workshop' },
  'autoscaling:UpdateAutoScalingGroup': { action: 'UpdateAutoScalingGroup', world: 'workshop' },
  'autoscaling:TerminateInstanceInAutoScalingGroup': { action: 'TerminateInstanceInAutoScalingGroup', world: 'workshop' },
  'autoscaling:PutLifecycleHook': { action: 'PutLifecycleHook', world: 'refresh' },
  'autoscaling:StartInstanceRefresh': { action: 'StartInstanceRefresh', world: 'refresh' },
  'autoscaling:CompleteLifecycleAction': { action: 'CompleteLifecycleAction', world: 'refresh' },
  'autoscaling:DeleteLifecycleHook': { action: 'DeleteLifecycleHook', world: 'refresh' },
  'eks:StartInsightsRefresh': { action: 'StartInsightsRefresh', notMade: 'made by plan/status reads, never by a step' },
  'eks:CancelUpdate': { action: 'CancelUpdate', notMade: 'made only when a rollback on Auto Mode is aborted' },
  'autoscaling:CancelInstanceRefresh': { action: 'CancelInstanceRefresh', notMade: 'made only when an instance refresh is aborted' },
};

let h: EngineHarness | undefined;
let child: ChildProcess | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await h?.close();
  h = undefined;
});

/** Runs the world's upgrade with the answer of each of `actions` lost once; answers gates as a rehearsal would. */
async function upgradeLosingAnswers(world: keyof typeof WORLDS, actions: string[], sdkAttempts: number) {
  const w = WORLDS[world];
  // On the simulator's clock: a step re-run after a lost answer waits its transient backoff (2 s, 4 s, 8 s… of the
  // bot's clock) at the simulator's speed, as the control-plane update it waits on does.
  h = await startEngineHarness({ scenario: w.scenario, speed: 600, config: w.config, clock: 'sim' });
  h.sim.world.faults.dropAnswers = Object.fromEntries(actions.map((a) => [a, 1]));
  const options = { endpoint: h.sim.url, credentials: { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' }, maxAttempts: sdkAttempts };
  const eks = createEksPortFactory(options);
  const engine = h.engine({ eks, ec2: createEc2PortFactory(options), autoScaling: createAutoScalingPortFactory(options), kube: createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 'sim' }) }) });
  await engine.startWorker();
  const { job } = await engine.control.start(h.request({ cluster: w.cluster, channel: 'C0OPS', to: w.to }), w.from);
  const answered = new Set<string>();
  const deadline = Date.now() + 200_000;
  for (;;) {
    const now = await engine.control.getJob(job.jobId);
    if (now && ['succeeded', 'failed', 'aborted'].includes(now.state)) break;
    if (Date.now() > deadline) throw new Error(`the upgrade did not end; it is ${now?.state} at ${now?.currentStep}`);
    const open = now?.openGate;
    const key = open ? `${open.gateId}#${open.revision}` : '';
    if (open && !answered.has(key)) {
      const gate = h.thread.events('gate-opened').map((e) => (e as { gate: GateModel }).gate).reverse().find((g) => g.gateId === open.gateId && g.revision === open.revision);
      if (gate) {
        answered.add(key);
        const action: GateAction = decide(gate, 'remedy');
        await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: gate.revision, action, userId: 'U0APP', reason: action === 'force' ? 'lost-answers drill' : undefined });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const done = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 30_000);
  return { done, dropped: [...h.sim.world.faults.injected.droppedAnswers], failures: h.thread.events('step-failed'), harness: h };
}

describe('every mutating action of the IAM policy, its answer lost', () => {
  it('the table names every mutating action deploy/iam/permissions-policy.json grants', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...MUTATING].sort());
  });

  for (const [mode, sdkAttempts] of [['the answer was lost (the SDK retries)', 2], ['a retry (the SDK gives up, the job runs the step again)', 1]] as const) {
    for (const world of Object.keys(WORLDS) as Array<keyof typeof WORLDS>) {
      const rows = Object.entries(TABLE).filter(([, row]) => row.world === world);
      it(`${mode}: ${rows.map(([name]) => name).join(', ')}`, async () => {
        const run = await upgradeLosingAnswers(world, rows.map(([, row]) => row.action), sdkAttempts);
        expect(run.done.state, JSON.stringify(run.failures)).toBe('succeeded');
        for (const [name, row] of rows) expect(run.dropped, `${name}: its answer was never lost, so the row tests nothing`).toContain(row.action);
        // Adopted, not repeated: one control-plane update, one clone per blue group, one refresh per group.
        expect(run.harness.calls('UpdateClusterVersion').filter((c) => !c.error)).toHaveLength(1);
        if (world === 'workshop') expect(run.harness.calls('CreateNodegroup').filter((c) => !c.error)).toHaveLength(1);
        if (world === 'refresh') {
          expect(run.harness.calls('StartInstanceRefresh').filter((c) => !c.error)).toHaveLength(1);
          // The drain hook is removed even by a re-run that finds the refresh over.
          expect(run.harness.sim.world.autoScalingGroups.get('gpu-batch-asg')!.lifecycleHooks).toEqual([]);
        }
      }, 240_000);
    }
  }

  it('a worker restart (the worker killed as the answer is lost): eks:UpdateClusterVersion and the instance-refresh actions', async () => {
    const rows = Object.entries(TABLE).filter(([, row]) => row.world === 'refresh');
    const actions = ['UpdateClusterVersion', ...rows.map(([, row]) => row.action)];
    h = await startEngineHarness({ scenario: 'self-managed-refresh', speed: 600, config: REFRESH });
    h.sim.world.faults.dropAnswers = Object.fromEntries(actions.map((a) => [a, 1]));
    const env = { ENGINE_CLUSTERS_JSON: JSON.stringify(REFRESH_CLUSTERS), ENGINE_STEP_KINDS: 'preflight,gate,control-plane,self-managed,verify' };
    child = await startEngineWorkerProcess(h, env);
    // This engine starts no worker: it only starts the job and answers its gate, as the web process does.
    const control = h.engine().control;
    const queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    const redis = new Redis(redisUrl);
    closers.push(() => queue.close(), async () => void (await redis.quit()));
    // The token of the worker holding the job (BullMQ's lock key `<prefix>:<queue>:<job>:lock`), null while nobody does.
    const lockOf = (jobId: string) => redis.get(`${h!.prefix}:${UPGRADE_QUEUE}:${jobId}:lock`);
    const { job } = await control.start(h.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
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
        // A worker pod restarts in seconds of the cluster's time. At 600× the few real seconds a new worker process
        // takes to boot (and BullMQ takes to see the old lock lapse) would be an hour of it, past the drain hook's
        // 30-minute heartbeat: Auto Scaling would go on without the bot and CompleteLifecycleAction never be made (the
        // test failed so under load). The world runs at real speed until the new worker has taken the job back.
        h.sim.world.clock.setSpeed!(1);
        child = await startEngineWorkerProcess(h, env);
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
