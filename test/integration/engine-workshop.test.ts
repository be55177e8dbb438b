import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * The workshop (seed 004) 1.25 → 1.26 with blue-mng blue/green: every kind of compute upgraded or reported, the
 * orders-pdb block surfaced with its remedy, the custom-AMI group stopped at a gate, Fargate `assets` moved to 1.26
 * nodes, a Markdown timeline, and exactly one control-plane version update.
 */
const config = parseClustersConfig({
  clusters: [
    {
      name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
      twoPersonRule: true, karpenter: { upgradeBudget: '1' },
      nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, '*': { strategy: 'in-place' } },
    },
  ],
});
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
});

describe('upgrade engine: the workshop cluster 1.25 → 1.26', () => {
  it('upgrades or reports every kind of compute, with the gates an approver would see', async () => {
    h = await startEngineHarness({ scenario: 'workshop', speed: 600, config });
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: 'eksworkshop-eksctl', channel: 'C0OPS', to: '1.26' }), '1.25');
    const { job: ended, gates } = await answerGatesUntilEnded(engine, h.thread, job.jobId, (gate) => {
      if (gate.gateId.endsWith('-preflight')) return { action: 'force', reason: 'the ui HPA is moved to autoscaling/v2 by the app team today' };
      if (gate.gateId.endsWith('-custom-ami')) return { action: 'force', reason: 'the custom AMI is rebuilt next sprint' };
      if (gate.actions.includes('remedy')) return { action: 'remedy' };
      return { action: 'continue' };
    });
    const failure = h.thread.events('step-failed')[0];
    expect(failure, JSON.stringify(failure)).toBeUndefined();
    expect(ended.state).toBe('succeeded');

    const cluster = h.sim.world.cluster('eksworkshop-eksctl')!;
    expect(cluster.version).toBe('1.26');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);

    // The gates, in order: preflight (deprecated API insight), control plane, blue/green delete, the PDB block, custom AMI.
    const ids = gates.map((g) => g.gateId);
    expect(ids[0]).toBe('h1-preflight');
    // The plan's checks, forceable: the deprecated HPA API (INS001) and the orders PDB that will block the drain (K8S004).
    expect(gates[0].details.join('\n')).toMatch(/INS001 error: autoscaling\/v2beta2 horizontalpodautoscalers is still in use/);
    expect(gates[0].details.join('\n')).toMatch(/K8S004 error: Deployment orders\/orders has 1 replica and PDB orders-pdb/);
    expect(ids[1]).toBe('h1-control-plane');
    const drain = gates.find((g) => g.gateId.endsWith('-drain'));
    expect(drain?.remedyLabel).toBe('Scale orders to 2 replicas');
    expect(drain?.details.join('\n')).toMatch(/orders\/orders-pdb \(0 disruptions allowed\)/);
    // Without an AMI source in clusters.yaml, the custom-AMI gate says exactly what to add.
    const customGate = gates.find((g) => g.gateId.endsWith('-custom-ami'));
    expect(customGate?.details.join('\n')).toContain('add `nodegroups: { custom-20250401115802906700000007: { amiParameter: "/my/amis/{minor}/image_id" } }` (or `ami: { "1.26": ami-… }`) to this cluster in clusters.yaml');

    // Managed node groups: initial in place, blue-mng replaced by a 1.26 green clone, custom left at 1.25 (forced past).
    const groups = Object.fromEntries([...cluster.nodegroups.values()].map((ng) => [ng.name, ng.version]));
    expect(groups['blue-mng-20250325023020754500000029']).toBeUndefined();
    expect(groups['blue-mng-20250325023020754500000029-1-26']).toBe('1.26');
    const summary = h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step === 'h1-managed-nodegroups');
    expect(summary?.kind === 'step-finished' && summary.summary).toMatch(/^blue-mng-20250325023020754500000029 → blue-mng-20250325023020754500000029-1-26 at 1\.26 \(blue\/green; \d+ pods now on/);
    expect(groups['initial-2025032502302076080000002c']).toBe('1.26');
    expect(cluster.store.get('deployments', 'orders', 'orders')?.spec?.replicas).toBe(2);

    // Fargate assets on 1.26 nodes; Karpenter checkout nodes on 1.26; add-ons at the 1.26 defaults.
    const nodes = cluster.store.list('nodes');
    const kubelet = (name: string) => String(nodes.find((n) => n.metadata.name === name)?.status?.nodeInfo?.kubeletVersion);
    const assets = cluster.store.list('pods', 'assets').filter((p) => !p.metadata.deletionTimestamp);
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.every((p) => kubelet(p.spec?.nodeName).startsWith('v1.26.'))).toBe(true);
    const karpenterNodes = nodes.filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']);
    expect(karpenterNodes.every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.26.'))).toBe(true);
    const addons = Object.fromEntries([...cluster.addons.values()].map((a) => [a.name, a.version]));
    expect(addons.coredns).toBe('v1.9.3-eksbuild.22');
    expect(addons['kube-proxy']).toBe('v1.26.15-eksbuild.24');

    // Self-managed nodes replaced by the bot onto 1.26 (issue 13), the group's capacity unchanged; the timeline exported.
    const selfManaged = nodes.filter((n) => n.metadata.labels?.['node.kubernetes.io/lifecycle'] === 'self-managed');
    expect(selfManaged.map((n) => String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6))).toEqual(['v1.26.', 'v1.26.']);
    expect(h.sim.world.autoScalingGroups.get('default-selfmng-2025032502302075740000002b')?.desiredCapacity).toBe(2);
    // The job's state is saved before its timeline is exported: wait for the upload.
    await until(() => h!.thread.uploads.length > 0, 'the timeline upload');
    expect(h.thread.uploads).toHaveLength(1);
    expect(h.thread.uploads[0].content).toMatch(/forced/);
  }, 150_000);
});
