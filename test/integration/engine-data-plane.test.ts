import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { addonVersionsFor } from '../../src/planning/deciders/plan-addon-update.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * The whole hop on the demo scenario: after the control plane, every add-on to the 1.31 default and the managed
 * node group in place, then verify — through the real SDK and client-node against the simulator.
 */
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness();
});
afterEach(async () => {
  await h.close();
});

describe('upgrade engine: add-ons and managed node groups', () => {
  it('takes demo to 1.31 everywhere: control plane, add-on defaults, node group and its nodes', async () => {
    const engine = h.engine();
    await engine.startWorker();
    // Deliberately started WITHOUT a plan: the "decide from the world" path, where every step kind runs and each step
    // acts on whatever needs work. `start` never takes it, but workers still resume such jobs (schema 1 jobs queued
    // before plans existed, engine-job-schema.test.ts), so it stays covered here. Every other engine test starts
    // its job with a plan, as `start` does (h.start), but lost-answers.test.ts (its comment says why).
    const { job } = await engine.control.start(h.request(), '1.30');
    await h.thread.waitFor((posts) => posts.some((p) => p.event.kind === 'gate-opened'), 20_000, 'the gate');
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 60_000);
    const failure = h.thread.events('step-failed')[0];
    expect(failure, JSON.stringify(failure)).toBeUndefined();
    expect(ended.state).toBe('succeeded');

    const cluster = h.sim.world.cluster('demo')!;
    expect(cluster.version).toBe('1.31');
    const eks = createEksPortFactory({ endpoint: h.sim.url, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } })({ region: 'us-west-2' });
    for (const addon of cluster.addons.values()) {
      const { defaultVersion } = addonVersionsFor(await eks.describeAddonVersions(addon.name, '1.31'), addon.name, '1.31');
      expect(`${addon.name} ${addon.version}`).toBe(`${addon.name} ${defaultVersion}`);
    }
    for (const ng of cluster.nodegroups.values()) expect(`${ng.name} ${ng.version}`).toBe(`${ng.name} 1.31`);
    const kubelets = cluster.store.list('nodes').map((n) => String(n.status?.nodeInfo?.kubeletVersion));
    expect(kubelets.length).toBeGreaterThan(0);
    expect(kubelets.every((v) => v.startsWith('v1.31.'))).toBe(true);

    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(h.calls('UpdateNodegroupVersion')).toHaveLength(1);
    const addonUpdates = h.calls('UpdateAddon').length;
    expect(addonUpdates).toBeGreaterThan(0);
    const steps = h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? `${e.step}: ${e.summary}` : ''));
    expect(steps.find((s) => s.startsWith('h1-addons'))).toMatch(/coredns v1\.11\.1-eksbuild\.20 → /);
    expect(steps.find((s) => s.startsWith('h1-managed-nodegroups'))).toMatch(/demo-ng 1\.30 → 1\.31 \(in place\)/);
    const images = h.thread.posts.find((p) => p.key === `${job.jobId}:h1-verify:images`);
    expect(images?.event.kind === 'note' && images.event.text).toMatch(/^Container images before → after: \d+ gone, \d+ new\./);
  });

  it('pauses between two add-ons (the update in flight finishes first) and carries on after Resume', async () => {
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    await h.thread.waitFor((posts) => posts.some((p) => p.event.kind === 'gate-opened'), 20_000, 'the gate');
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
    await h.thread.waitFor((posts) => posts.some((p) => p.key.includes(':h1-addons:addon:')), 20_000, 'the first add-on update');
    const paused = await engine.control.pause(job.jobId, 'U0APP');
    expect(paused).toMatchObject({ ok: true, message: expect.stringMatching(/AWS cannot pause an in-flight add-on update; it will finish, then the job waits\.$/) });
    await waitForJobState(engine, job.jobId, ['paused']);
    await h.thread.waitFor((posts) => posts.some((p) => p.key === `${job.jobId}:pause:1`), 20_000, 'the pause note');
    const issuedWhenPaused = h.calls('UpdateAddon').length;
    expect(issuedWhenPaused).toBeGreaterThan(0);
    await h.parked(job.jobId);
    // Parked: the add-on update that was in flight has finished, and nothing was started since the pause.
    expect(h.sim.world.cluster('demo')!.updates.filter((u) => u.type === 'AddonUpdate').map((u) => u.status)).not.toContain('InProgress');
    expect(h.calls('UpdateAddon')).toHaveLength(issuedWhenPaused);
    expect(h.calls('UpdateNodegroupVersion')).toHaveLength(0);

    await engine.control.resume(job.jobId, 'U0APP');
    // The node group's planned gate comes after the add-ons (issue 23): an approver continues.
    const { job: ended } = await answerGatesUntilEnded(engine, h.thread, job.jobId, () => ({ action: 'continue' }), 60_000);
    expect(ended.state).toBe('succeeded');
    expect(h.calls('UpdateNodegroupVersion')).toHaveLength(1);
    expect(h.thread.posts.filter((p) => p.key === `${job.jobId}:h1-addons:started`)).toHaveLength(1);
  });
});
