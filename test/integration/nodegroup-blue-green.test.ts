import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { EksPort, EksPortFactory } from '../../src/ports/aws/eks-port.js';
import { countingKube, simAdapters } from '../support/counting-kube-port.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * demo-ng upgraded blue/green (demo 1.30 → 1.31) through the real SDK and client-node against the simulator: the
 * green clone is created and waited for, the approver is asked, blue is deleted and followed until its nodes are
 * gone, and the thread says where the pods landed. Nodes and pods come from watches; DescribeNodegroup is read at
 * the bounded poll rate.
 */
const POLL_MS = 50;
const config = parseClustersConfig({
  clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'], nodegroups: { 'demo-ng': { strategy: 'blue-green' } } }],
});
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness({ config });
});
afterEach(async () => {
  await h.close();
});

function countingPorts(sim: EngineHarness['sim']) {
  const { eks: realEks, kube: realKube } = simAdapters(sim);
  const counting = countingKube(realKube);
  const seen = { lists: counting.lists, watches: counting.watches, describeNodegroup: [] as Array<{ name: string; at: number }> };
  const eks: EksPortFactory = (target) => {
    const port = realEks(target);
    return new Proxy(port, {
      get(object, prop: keyof EksPort) {
        if (prop !== 'describeNodegroup') return object[prop];
        return (async (cluster: string, name: string) => {
          seen.describeNodegroup.push({ name, at: Date.now() });
          return object.describeNodegroup(cluster, name);
        }) as EksPort['describeNodegroup'];
      },
    });
  };
  return { eks, kube: counting.kube, seen };
}

describe('managed node group blue/green', () => {
  it('creates the 1.31 green clone, deletes blue after approval, follows it until its nodes are gone, and says where the pods landed', async () => {
    const ports = countingPorts(h.sim);
    const engine = h.engine({ eks: ports.eks, kube: ports.kube, pollIntervalMs: POLL_MS });
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const { gates } = await answerGatesUntilEnded(engine, h.thread, job.jobId, () => ({ action: 'continue' }));
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 10_000);
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(ended.state).toBe('succeeded');
    expect(gates.map((gate) => gate.gateId)).toEqual(['h1-control-plane', 'h1-bg-demo-ng']);

    const cluster = h.sim.world.cluster('demo')!;
    expect([...cluster.nodegroups.keys()]).toEqual(['demo-ng-1-31']);
    const nodes = cluster.store.list('nodes');
    expect(nodes.map((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'])).toEqual(['demo-ng-1-31', 'demo-ng-1-31']);
    const greenNodes = new Set(nodes.map((n) => n.metadata.name));
    const workloadPods = cluster.store.list('pods').filter((p) => !p.metadata.ownerReferences?.some((r) => r.kind === 'DaemonSet') && !p.metadata.deletionTimestamp);
    expect(workloadPods.every((p) => greenNodes.has(p.spec?.nodeName))).toBe(true);

    const finished = h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step === 'h1-managed-nodegroups');
    const summary = finished?.kind === 'step-finished' ? finished.summary : '';
    const [, landed] = /^demo-ng → demo-ng-1-31 at 1\.31 \(blue\/green; (\d+) pods now on demo-ng-1-31\)$/.exec(summary ?? '') ?? [];
    expect(Number(landed)).toBe(workloadPods.length);
    const where = h.thread.posts.find((p) => p.key === `${job.jobId}:h1-managed-nodegroups:bg:demo-ng:landed`);
    expect(where?.event.kind === 'progress' && where.event.text).toMatch(new RegExp(`^Pods of demo-ng now run on demo-ng-1-31: ${workloadPods.length} pods on 2 nodes \\(shop ×5, kube-system ×2\\)\\.$`));
    const verify = h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step === 'h1-verify');
    expect(verify?.kind === 'step-finished' && verify.summary).toMatch(/every node of demo-ng-1-31 at 1\.31/);

    // Nodes and pods from watches; DescribeNodegroup of green and blue at most once per poll interval each.
    expect(ports.seen.watches).toContain('nodes eks.amazonaws.com/nodegroup in (demo-ng,demo-ng-1-31)');
    expect(ports.seen.lists.filter((l) => l.includes('eks.amazonaws.com/nodegroup'))).toEqual([]);
    for (const name of ['demo-ng', 'demo-ng-1-31']) {
      const reads = ports.seen.describeNodegroup.filter((r) => r.name === name).map((r) => r.at);
      expect(reads.length).toBeLessThanOrEqual(Math.ceil((reads.at(-1)! - reads[0]) / POLL_MS) + 6);
    }
  });
});
