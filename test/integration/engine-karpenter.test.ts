import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { UpgradeEngine } from '../../jobs/worker/create-upgrade-engine.js';
import { until } from '../support/until.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Seed 000's Karpenter drift lab through the engine: with upgradeBudget "1", the checkout nodes are replaced one at
 * a time after the EC2NodeClass is pointed at the 1.31 AMI, and the NodePool's own budget comes back afterwards.
 */
const config = parseClustersConfig({
  clusters: [{ name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], karpenter: { upgradeBudget: '1' } }],
});
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
});

const disrupted = (node: KubeObject) => (node.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted' || t.key === 'karpenter.sh/disruption');

/** The Karpenter step asks the gate its plan line announces before it changes anything: an approver continues. */
async function answerFirstGate(engine: UpgradeEngine, jobId: string): Promise<void> {
  const opened = await until(() => h!.thread.events('gate-opened')[0], 'the Karpenter gate', 20_000);
  if (opened.kind !== 'gate-opened') throw new Error('not a gate');
  await engine.control.answerGate({ jobId, gateId: opened.gate.gateId, revision: opened.gate.revision, action: 'continue', userId: 'U0APP' });
}

describe('upgrade engine: Karpenter drift', () => {
  it('replaces the checkout nodes one at a time, reports NodeClaims replaced 2/2, and restores the budget', async () => {
    h = await startEngineHarness({ scenario: 'karpenter-lab', speed: 600, config, stepKinds: ['preflight', 'gate', 'control-plane', 'karpenter', 'verify'] });
    const cluster = h.sim.world.cluster('eksworkshop-eksctl')!;
    let maxDisrupted = 0;
    const unsubscribe = cluster.store.subscribe(() => {
      const count = cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] && disrupted(n)).length;
      maxDisrupted = Math.max(maxDisrupted, count);
    });
    const originalBudgets = cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets;
    expect(originalBudgets).toEqual([{ nodes: '10%' }]);

    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: 'eksworkshop-eksctl', channel: 'C0OPS' }), '1.30');
    // The control-plane gate, then the Karpenter step's own (the plan announces both; issue 23).
    const { job: ended, gates } = await answerGatesUntilEnded(engine, h.thread, job.jobId, () => ({ action: 'continue' }), 90_000);
    expect(gates.map((gate) => gate.gateId)[0]).toBe('h1-control-plane');
    unsubscribe();
    const failure = h.thread.events('step-failed')[0];
    expect(failure, JSON.stringify(failure)).toBeUndefined();
    expect(ended.state).toBe('succeeded');

    const checkout = cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default');
    expect(checkout).toHaveLength(2);
    expect(checkout.map((n) => String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6))).toEqual(['v1.31.', 'v1.31.']);
    const checkoutPods = cluster.store.list('pods').filter((p) => checkout.some((n) => n.metadata.name === p.spec?.nodeName) && !p.metadata.ownerReferences?.some((r: { kind: string }) => r.kind === 'DaemonSet'));
    expect(checkoutPods.length).toBeGreaterThan(0);
    expect(checkoutPods.every((p) => p.status?.phase === 'Running')).toBe(true);
    expect(maxDisrupted).toBe(1);
    expect(cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets).toEqual(originalBudgets);

    const texts = h.thread.posts.map((p) => ('text' in p.event ? p.event.text : 'summary' in p.event ? (p.event.summary ?? '') : ''));
    expect(texts.some((t) => t.startsWith('NodeClaims replaced 2/2'))).toBe(true);
    expect(texts.some((t) => /EC2NodeClass default: amiSelectorTerms → ami-/.test(t))).toBe(true);
    const karpenterSummary = h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step === 'h1-karpenter');
    expect(karpenterSummary?.kind === 'step-finished' && karpenterSummary.summary).toMatch(/NodeClaims replaced 2\/2 in default; at most 1 node\(s\) disrupted at once; .*budgets restored on default/);
  }, 120_000);

  it('sets the budgets to nodes: "0" at once on Pause, back to the upgrade budget on Resume, and restores them at the end', async () => {
    h = await startEngineHarness({ scenario: 'karpenter-lab', speed: 120, config, stepKinds: ['karpenter', 'verify'] });
    const cluster = h.sim.world.cluster('eksworkshop-eksctl')!;
    const budgets = () => cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets;
    // Karpenter alone: planned as `start` plans it (at 1.30), then the control plane is put at 1.31 before the job runs.
    const request = h.request({ cluster: 'eksworkshop-eksctl', channel: 'C0OPS' });
    const plan = await h.plan(request, '1.30');
    cluster.version = '1.31';
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await engine.control.start(request, '1.30', plan);
    await answerFirstGate(engine, job.jobId);
    await h.thread.waitFor((posts) => posts.some((p) => p.key.includes(':class:default:')), 20_000, 'the EC2NodeClass change');
    expect(budgets()).toEqual([{ nodes: '1' }]);

    expect(await engine.control.pause(job.jobId, 'U0APP')).toMatchObject({ ok: true });
    await h.thread.waitFor((posts) => posts.some((p) => p.key.includes(':drift:paused:1')), 20_000, 'the pause note');
    expect(budgets()).toEqual([{ nodes: '0' }]);
    await waitForJobState(engine, job.jobId, ['paused']);
    await h.thread.waitFor((posts) => posts.some((p) => p.key === `${job.jobId}:pause:1`), 20_000, "the processor's pause note");
    expect(h.thread.lastCard()?.state).toBe('paused');

    expect(await engine.control.resume(job.jobId, 'U0APP')).toMatchObject({ ok: true });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 90_000);
    expect(ended.state).toBe('succeeded');
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    const checkout = cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default');
    expect(checkout.every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.'))).toBe(true);
  }, 120_000);

  it('restores the budgets when the job is aborted during the rollout', async () => {
    h = await startEngineHarness({ scenario: 'karpenter-lab', speed: 120, config, stepKinds: ['karpenter', 'verify'] });
    const cluster = h.sim.world.cluster('eksworkshop-eksctl')!;
    const request = h.request({ cluster: 'eksworkshop-eksctl', channel: 'C0OPS' });
    const plan = await h.plan(request, '1.30');
    cluster.version = '1.31';
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await engine.control.start(request, '1.30', plan);
    await answerFirstGate(engine, job.jobId);
    await h.thread.waitFor((posts) => posts.some((p) => p.key.includes(':class:default:')), 20_000, 'the EC2NodeClass change');
    expect(await engine.control.abort(job.jobId, 'U0APP')).toMatchObject({ ok: true });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 30_000);
    expect(ended.state).toBe('aborted');
    expect(cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    const summary = h.thread.events('summary')[0];
    expect(summary.kind === 'summary' && summary.lines[0]).toMatch(/aborted during the Karpenter rollout; budgets restored on default/);
  }, 60_000);
});
