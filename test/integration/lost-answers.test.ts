import { afterEach, describe, expect, it } from 'vitest';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import type { GateAction, GateModel } from '../../src/ports/timeline-event.js';
import { decide } from '../../jobs/rehearsal/rehearse-upgrade.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { MUTATING, TABLE, WORLDS } from './lost-answers-table.js';

/** Every mutating action's answer lost once, the SDK retrying it or the job re-running its step (the table and its rules: lost-answers-table.ts). */
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Runs the world's upgrade with the answer of each of `actions` lost once; answers gates as a rehearsal would. */
async function upgradeLosingAnswers(world: keyof typeof WORLDS, actions: string[], sdkAttempts: number) {
  const w = WORLDS[world];
  // On the simulator's clock: a step re-run after a lost answer waits its transient backoff (2 s, 4 s, 8 s… of the
  // bot's clock) at the simulator's speed, as the control-plane update it waits on does. The job's own timeouts pass
  // at that speed too: at 600× the remedy's 10 minutes for orders to scale are 1 s of wall time (passed at load 16).
  h = await startEngineHarness({ scenario: w.scenario, speed: 600, config: w.config, clock: 'sim' });
  h.sim.world.faults.dropAnswers = Object.fromEntries(actions.map((a) => [a, 1]));
  const options = { endpoint: h.sim.url, credentials: { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' }, maxAttempts: sdkAttempts };
  const eks = createEksPortFactory(options);
  const engine = h.engine({ eks, ec2: createEc2PortFactory(options), autoScaling: createAutoScalingPortFactory(options), kube: createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 'sim' }) }) });
  await engine.startWorker();
  // Started without a plan: planned (h.start), the plan's read runs on this harness's simulated clock at 600×, and
  // its deadline passes in about a wall second (deadline_exceeded). Planning on the simulator's clock is left to do.
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
});
