import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Seed 000's drift lab with its EC2NodeClass on `al2023@latest`: the nodes drift as soon as the control plane
 * reaches 1.31, so the upgrade budget (nodes "1") must be on the NodePool before UpdateClusterVersion — set by the
 * 'karpenter-budget' step — and the NodePool's own budget (nodes 10%) must come back at the end or on abort.
 */
const config = parseClustersConfig({
  clusters: [{ name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], karpenter: { upgradeBudget: '1' } }],
});
const stepKinds = ['preflight', 'gate', 'karpenter-budget', 'control-plane', 'karpenter', 'verify'] as const;
const CLUSTER = 'eksworkshop-eksctl';
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const disrupted = (node: KubeObject) => (node.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted' || t.key === 'karpenter.sh/disruption');

async function startAliasLab() {
  h = await startEngineHarness({ scenario: 'karpenter-lab', speed: 300, config, stepKinds: [...stepKinds] });
  const cluster = h.sim.world.cluster(CLUSTER)!;
  cluster.store.mutate('ec2nodeclasses', 'default', undefined, (nodeClass) => {
    nodeClass.spec.amiSelectorTerms = [{ alias: 'al2023@latest' }];
  });
  const budgets = () => cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets;
  // The budgets at the moment the simulator records UpdateClusterVersion.
  const atUpdate: unknown[] = [];
  const calls = h.sim.world.calls;
  const push = calls.push.bind(calls);
  calls.push = (...items) => {
    if (items.some((call) => call.operation === 'UpdateClusterVersion')) atUpdate.push(structuredClone(budgets()));
    return push(...items);
  };
  let maxDisrupted = 0;
  const unsubscribe = cluster.store.subscribe(() => {
    const count = cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] && disrupted(n)).length;
    maxDisrupted = Math.max(maxDisrupted, count);
  });
  const engine = h.engine();
  await engine.startWorker();
  const { job } = await h.start(engine.control, h.request({ cluster: CLUSTER, channel: 'C0OPS' }), '1.30');
  await waitForJobState(engine, job.jobId, ['waiting-approval']);
  await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
  return { h, cluster, engine, job, budgets, atUpdate, maxDisrupted: () => maxDisrupted, unsubscribe };
}

describe('Karpenter budget before the control plane (EC2NodeClass on al2023@latest)', () => {
  it('puts nodes "1" on the NodePool before UpdateClusterVersion, replaces one node at a time, and restores nodes 10%', async () => {
    const lab = await startAliasLab();
    expect(lab.budgets()).toEqual([{ nodes: '10%' }]);
    const ended = await waitForJobState(lab.engine, lab.job.jobId, ['succeeded', 'failed', 'aborted'], 90_000);
    lab.unsubscribe();
    const failure = lab.h.thread.events('step-failed')[0];
    expect(failure, JSON.stringify(failure)).toBeUndefined();
    expect(ended.state).toBe('succeeded');

    expect(lab.h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(lab.atUpdate).toEqual([[{ nodes: '1' }]]);
    expect(lab.maxDisrupted()).toBe(1);
    expect(lab.budgets()).toEqual([{ nodes: '10%' }]);
    const nodes = lab.cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default');
    expect(nodes.map((n) => String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6))).toEqual(['v1.31.', 'v1.31.']);

    const finished = lab.h.thread.events('step-finished').flatMap((e) => (e.kind === 'step-finished' ? [`${e.step}: ${e.summary ?? ''}`] : []));
    const ids = finished.map((line) => line.split(':')[0]);
    expect(ids.indexOf('h1-karpenter-budget')).toBeLessThan(ids.indexOf('h1-control-plane'));
    expect(finished.find((line) => line.startsWith('h1-karpenter-budget'))).toMatch(/NodePool default at nodes 1 before the control plane moves/);
    // The Karpenter step took the original over from the hold: it restores nodes 10%, never the held nodes 1.
    expect(finished.find((line) => line.startsWith('h1-karpenter:'))).toMatch(/budgets restored on default \(nodes 10%\)/);
  }, 120_000);

  it('restores nodes 10% when the job is aborted while the control plane is upgrading', async () => {
    const lab = await startAliasLab();
    await lab.h.thread.waitFor((posts) => posts.some((p) => p.key === `${lab.job.jobId}:h1-control-plane:issued`), 20_000, 'UpdateClusterVersion issued');
    expect(lab.budgets()).toEqual([{ nodes: '1' }]);
    expect(await lab.engine.control.abort(lab.job.jobId, 'U0APP')).toMatchObject({ ok: true });
    const ended = await waitForJobState(lab.engine, lab.job.jobId, ['succeeded', 'failed', 'aborted'], 30_000);
    lab.unsubscribe();
    expect(ended.state).toBe('aborted');
    expect(lab.atUpdate).toEqual([[{ nodes: '1' }]]);
    expect(lab.budgets()).toEqual([{ nodes: '10%' }]);
    const texts = lab.h.thread.posts.map((p) => ('text' in p.event ? p.event.text : ''));
    expect(texts.some((t) => t.startsWith('Original disruption budgets restored: NodePool default nodes 10%'))).toBe(true);
  }, 60_000);

  it('holds the NodePool at nodes "0" on a Pause after the control plane, and back to nodes "1" on Resume', async () => {
    const lab = await startAliasLab();
    // Karpenter may not finish the drift before the Resume: on a busy machine the update can end before the job's
    // next safe point, and a pool with nothing left to replace has its original budget put back instead (rightly).
    // The nodes are let go once the thread shows the Resume.
    const karpenterNodes = () => lab.cluster.store.list('nodes').filter((node) => node.metadata.labels?.['karpenter.sh/nodepool']);
    const pin = (value: string | undefined) => {
      for (const node of karpenterNodes()) {
        lab.cluster.store.mutate('nodes', node.metadata.name, undefined, (n) => {
          const { 'karpenter.sh/do-not-disrupt': _, ...others } = n.metadata.annotations ?? {};
          n.metadata.annotations = value === undefined ? others : { ...others, 'karpenter.sh/do-not-disrupt': value };
        });
      }
    };
    expect(karpenterNodes().length).toBeGreaterThan(1);
    pin('true');
    await lab.h.thread.waitFor((posts) => posts.some((p) => p.key === `${lab.job.jobId}:h1-control-plane:issued`), 20_000, 'UpdateClusterVersion issued');
    expect(await lab.engine.control.pause(lab.job.jobId, 'U0APP')).toMatchObject({ ok: true });
    // AWS cannot pause the update: the job waits for it to end, then holds the pool at the next safe point.
    await lab.h.thread.waitFor((posts) => posts.some((p) => p.key === `${lab.job.jobId}:pause:1`), 30_000, "the processor's pause note");
    expect(lab.budgets()).toEqual([{ nodes: '0' }]);
    expect(lab.h.sim.world.cluster(CLUSTER)!.version).toBe('1.31');

    expect(await lab.engine.control.resume(lab.job.jobId, 'U0APP')).toMatchObject({ ok: true });
    // Whichever step is current at the Resume (the control plane's, or Karpenter's if the update ended first) says so.
    const resumed = "Resumed: disruption budget back to the upgrade's (NodePool default nodes 1)";
    await lab.h.thread.waitFor((posts) => posts.some((p) => 'text' in p.event && p.event.text.startsWith(resumed)), 20_000, 'the resumed budget');
    expect(lab.budgets()).toEqual([{ nodes: '1' }]);
    pin(undefined);
    const ended = await waitForJobState(lab.engine, lab.job.jobId, ['succeeded', 'failed', 'aborted'], 90_000);
    lab.unsubscribe();
    expect(ended.state).toBe('succeeded');
    expect(lab.maxDisrupted()).toBe(1);
    expect(lab.budgets()).toEqual([{ nodes: '10%' }]);
  }, 120_000);
});
