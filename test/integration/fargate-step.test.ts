import { afterEach, describe, expect, it } from 'vitest';
import { createFargateStep } from '../../jobs/steps/fargate/fargate-step.js';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';
import { createStepRig, upgradeControlPlane } from '../support/karpenter-step-context.js';
import { until } from '../support/until.js';

/**
 * The Fargate step on the workshop cluster (seed 004): `assets` runs on a Fargate node at 1.25; once the control
 * plane is at 1.26, the step restarts the deployment as `kubectl rollout restart` does and follows it by watching
 * until its pod runs on a 1.26 Fargate node. Real adapters against the simulator over HTTP, on the sim's clock.
 */
const CLUSTER = 'eksworkshop-eksctl';
let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const store = () => sim!.world.cluster(CLUSTER)!.store;
const kubeletOf = (nodeName: string) => String(store().get('nodes', nodeName)?.status?.nodeInfo?.kubeletVersion);
const assetsPods = () => store().list('pods', 'assets').filter((p) => !p.metadata.deletionTimestamp);

/** Fargate binds the assets pod 30 simulated seconds after the simulator starts. */
async function waitForAssetsOnFargate(): Promise<void> {
  await until(() => assetsPods().some((p) => String(p.spec?.nodeName ?? '').startsWith('fargate-') && p.status?.phase === 'Running'), 'the assets pod to run on a Fargate node');
}

async function workshopAt126(opts: { dryRun?: boolean } = {}) {
  sim = await startSimulator({ scenario: 'workshop', port: 0, host: '127.0.0.1', speed: 600 });
  const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'fargate', from: '1.25', to: '1.26', dryRun: opts.dryRun });
  await waitForAssetsOnFargate();
  await upgradeControlPlane(rig, CLUSTER, '1.26');
  return rig;
}

describe('Fargate step: the workshop assets', () => {
  it('restarts assets once and ends with its pod Ready on a 1.26 Fargate node', async () => {
    const rig = await workshopAt126();
    const before = assetsPods();
    expect(before.map((p) => kubeletOf(p.spec?.nodeName))).toEqual([expect.stringMatching(/^v1\.25\./)]);
    const { result } = await rig.runUntilSettled(createFargateStep());

    expect(result.outcome).toBe('done');
    const after = assetsPods();
    expect(after).toHaveLength(1);
    expect(after[0].metadata.name).not.toBe(before[0].metadata.name);
    expect(after[0].status?.phase).toBe('Running');
    expect(kubeletOf(after[0].spec?.nodeName)).toMatch(/^v1\.26\./);
    const restartedAt = store().get('deployments', 'assets', 'assets')?.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'];
    expect(restartedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect(rig.progress).toContain('Fargate workloads restarted 1/1');
    expect(rig.texts()).toContain('Restarted deployment assets/assets (as kubectl rollout restart) so its 1 pod(s) move to 1.26 Fargate nodes.');
    expect(result.outcome === 'done' && result.summary).toBe('Fargate workloads restarted 1/1 (deployment assets/assets 1/1 pod(s) on 1.26)');

    // Run again (a worker that died after finishing but before the engine heard): nothing restarts a second time.
    rig.data.stepState = {};
    const again = await createFargateStep()(rig.context());
    expect(again).toEqual({ outcome: 'skipped', summary: 'all 1 Fargate node(s) already at 1.26' });
    expect(store().get('deployments', 'assets', 'assets')?.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toBe(restartedAt);
  }, 60_000);

  it('a re-run after a crash between the patch and its record writes the same restartedAt: one rollout, not two', async () => {
    const rig = await workshopAt126();
    const step = createFargateStep();
    // First run: the process dies right after the patch, before job.data records it (the second save fails).
    let saves = 0;
    const base = rig.context();
    const dying = rig.context({
      saveStepState: async (patch) => {
        if (++saves === 3) throw new Error('worker killed');
        await base.saveStepState(patch);
      },
    });
    await expect(step(dying)).rejects.toThrow('worker killed');
    const first = store().get('deployments', 'assets', 'assets')!;
    expect(first.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBeDefined();
    const { result } = await rig.runUntilSettled(step);
    expect(result.outcome).toBe('done');
    const last = store().get('deployments', 'assets', 'assets')!;
    expect(last.metadata.generation).toBe(first.metadata.generation);
    expect(rig.texts().filter((t) => t.startsWith('Restarted deployment assets/assets'))).toHaveLength(1);
  }, 60_000);

  it('paused before a restart, parks at the shared safe point, whose early wake-up honours an Abort', async () => {
    const rig = await workshopAt126();
    const before = assetsPods().map((p) => p.metadata.name);
    rig.controls.paused = true;
    const step = createFargateStep();
    const parked = await step(rig.context());
    expect(parked.outcome).toBe('wait');
    if (parked.outcome !== 'wait') return;
    // Still paused: nothing to wake for. Aborted while paused: wake now, so the job can end instead of waiting.
    expect(await parked.wakeEarly?.()).toBe(false);
    rig.controls.abort = { by: 'U0APP', at: sim!.clock.now() };
    expect(await parked.wakeEarly?.()).toBe(true);
    const ended = await step(rig.context());
    expect(ended).toMatchObject({ outcome: 'abort', by: 'U0APP' });
    expect(assetsPods().map((p) => p.metadata.name)).toEqual(before);
  });

  it('in a dry run says what it would restart and changes nothing', async () => {
    const rig = await workshopAt126({ dryRun: true });
    const generation = store().get('deployments', 'assets', 'assets')?.metadata.generation;
    const result = await createFargateStep()(rig.context());
    expect(result).toEqual({
      outcome: 'dry-run',
      summary: 'would restart deployment assets/assets (1 pod(s)) one at a time (as kubectl rollout restart) so their pods move to 1.26 Fargate nodes',
    });
    expect(store().get('deployments', 'assets', 'assets')?.metadata.generation).toBe(generation);
  }, 30_000);

  it('is skipped while the control plane is still at the Fargate nodes\' version', async () => {
    sim = await startSimulator({ scenario: 'workshop', port: 0, host: '127.0.0.1', speed: 600 });
    const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'fargate', from: '1.24', to: '1.25' });
    await waitForAssetsOnFargate();
    expect(await createFargateStep()(rig.context())).toEqual({ outcome: 'skipped', summary: 'all 1 Fargate node(s) already at 1.25' });
  }, 30_000);
});
