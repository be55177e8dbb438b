import { afterEach, describe, expect, it } from 'vitest';
import { AMI_130, AMI_131, KUBELET_131, createLab } from './sim-karpenter-fixture.js';
import { kubeletVersionFor } from '../../../src/sim/aws/eks/version-catalog.js';

type Lab = ReturnType<typeof createLab>;
let lab: Lab | undefined;
afterEach(() => lab?.stop());

function setAmi(target: Lab, id: string) {
  target.store.mutate('ec2nodeclasses', 'default', undefined, (nc) => {
    nc.spec.amiSelectorTerms = [{ id }];
  });
}

function setBudget(target: Lab, nodes: string) {
  target.store.mutate('nodepools', 'default', undefined, (np) => {
    np.spec.disruption.budgets = [{ nodes }];
  });
}

const disruptedNodes = (target: Lab) =>
  target.karpenterNodes().filter((n) => (n.spec?.taints ?? []).some((t: any) => t.key === 'karpenter.sh/disrupted'));

describe('Karpenter drift lab (seed 000)', () => {
  it('replaces two drifted checkout nodes one at a time under budget nodes "1"', async () => {
    lab = createLab();
    lab.start();
    await lab.run(5_000);
    const oldNodes = lab.karpenterNodes().map((n) => n.metadata.name);
    expect(oldNodes).toHaveLength(2);
    expect(lab.pods().filter((p) => p.spec.nodeName)).toHaveLength(10);

    setBudget(lab, '1');
    setAmi(lab, AMI_131);
    const changedAt = lab.clock.now();
    let driftSeenAt: number | undefined;
    let maxDisrupting = 0;
    await lab.run(30 * 60_000, 1_000, () => {
      const disrupting = disruptedNodes(lab!).length;
      const deletingClaims = lab!.claims().filter((c) => c.metadata.deletionTimestamp || (c.status?.conditions ?? []).some((x: any) => x.type === 'DisruptionReason')).length;
      maxDisrupting = Math.max(maxDisrupting, disrupting, deletingClaims);
      expect(disrupting).toBeLessThanOrEqual(1);
      expect(deletingClaims).toBeLessThanOrEqual(1);
      if (driftSeenAt === undefined && lab!.claims().some((c) => (c.status?.conditions ?? []).some((x: any) => x.type === 'Drifted' && x.reason === 'AMIDrift'))) {
        driftSeenAt = lab!.clock.now();
      }
    });
    expect(maxDisrupting).toBe(1);
    expect(driftSeenAt! - changedAt).toBeLessThanOrEqual(60_000);

    const nodes = lab.karpenterNodes();
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    expect(nodes.map((n) => n.metadata.name).filter((name) => oldNodes.includes(name))).toEqual([]);
    expect(new Set(nodes.map((n) => n.status.nodeInfo.kubeletVersion))).toEqual(new Set([KUBELET_131]));
    expect(new Set(lab.claims().map((c) => c.status.imageID))).toEqual(new Set([AMI_131]));
    expect(lab.claims().every((c) => !(c.status.conditions ?? []).some((x: any) => x.type === 'Drifted'))).toBe(true);
    const running = lab.pods().filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
    expect(running).toHaveLength(10);
    expect(running.every((p) => nodes.some((n) => n.metadata.name === p.spec.nodeName))).toBe(true);

    // Karpenter's log: each node replaced in turn, the second only after the first is gone.
    const story = lab.messages().filter((m) => ['disrupting node(s)', 'deleted nodeclaim'].includes(m));
    expect(story).toEqual(['disrupting node(s)', 'deleted nodeclaim', 'disrupting node(s)', 'deleted nodeclaim']);
    const disrupting = lab.logs.filter((l) => l.message === 'disrupting node(s)');
    expect(disrupting.every((l) => l.decision === 'replace' && l.reason === 'drifted' && l.controller === 'disruption' && l.level === 'INFO')).toBe(true);
    for (const message of ['created nodeclaim', 'launched nodeclaim', 'registered nodeclaim', 'initialized nodeclaim', 'tainted node', 'deleted node']) {
      expect(lab.messages()).toContain(message);
    }
    const reasons = lab.events().map((e: any) => e.reason);
    for (const reason of ['DisruptionLaunching', 'DisruptionWaitingReadiness', 'DisruptionTerminating', 'Evicted']) expect(reasons).toContain(reason);
  });

  it('marks drifted claims the way kubectl shows them, and clears drift when the AMI is set back', async () => {
    lab = createLab({ budgets: [{ nodes: '0' }] });
    lab.start();
    setAmi(lab, AMI_131);
    await lab.run(60_000, 10_000);
    const claim = lab.claims()[0];
    expect(claim.status.conditions).toContainEqual(expect.objectContaining({ type: 'Drifted', status: 'True', reason: 'AMIDrift', message: 'AMIDrift' }));
    expect(claim.metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(claim.metadata.name).toMatch(/^default-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const nodeClass = lab.store.get('ec2nodeclasses', 'default')!;
    expect(nodeClass.status.amis.map((a: any) => a.id)).toEqual([AMI_131]);
    expect(nodeClass.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));

    setAmi(lab, AMI_130);
    await lab.run(20_000, 10_000);
    expect(lab.claims().every((c) => !(c.status.conditions ?? []).some((x: any) => x.type === 'Drifted'))).toBe(true);
  });

  it('replaces nothing under budget nodes "0" and says so on the NodePool', async () => {
    lab = createLab({ budgets: [{ nodes: '0' }] });
    lab.start();
    const before = lab.claims().map((c) => c.metadata.name).sort();
    setAmi(lab, AMI_131);
    await lab.run(15 * 60_000, 5_000);
    expect(lab.claims().map((c) => c.metadata.name).sort()).toEqual(before);
    expect(disruptedNodes(lab)).toEqual([]);
    const blocked = lab.events('DisruptionBlocked').filter((e: any) => e.involvedObject.kind === 'NodePool');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({
      message: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
      involvedObject: { name: 'default' },
      metadata: { namespace: 'default' },
      source: { component: 'karpenter' },
    });
    expect(blocked[0].count).toBeGreaterThan(1);
  });

  it('stops starting replacements as soon as the budget drops to "0" mid-rollout, letting the one in flight finish', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    await lab.run(5_000);
    const oldNodes = lab.karpenterNodes().map((n) => n.metadata.name);
    setAmi(lab, AMI_131);
    await lab.run(10 * 60_000, 1_000, () => {
      if (disruptedNodes(lab!).length > 0) {
        const current = lab!.store.get('nodepools', 'default')!;
        if (current.spec.disruption.budgets[0].nodes !== '0') setBudget(lab!, '0');
      }
    });
    const remaining = lab.karpenterNodes().map((n) => n.metadata.name);
    expect(remaining.filter((name) => oldNodes.includes(name))).toHaveLength(1);
    expect(lab.messages().filter((m) => m === 'disrupting node(s)')).toHaveLength(1);
    expect(lab.messages().filter((m) => m === 'deleted nodeclaim')).toHaveLength(1);
  });

  it('rounds percentage budgets up: 10% of two nodes still replaces them, one at a time', async () => {
    lab = createLab({ budgets: [{ nodes: '10%' }] });
    lab.start();
    setAmi(lab, AMI_131);
    await lab.run(30 * 60_000, 2_000, () => expect(disruptedNodes(lab!).length).toBeLessThanOrEqual(1));
    expect(lab.messages().filter((m) => m === 'deleted nodeclaim')).toHaveLength(2);
    expect(new Set(lab.karpenterNodes().map((n) => n.status.nodeInfo.kubeletVersion))).toEqual(new Set([kubeletVersionFor('1.31')]));
  });

  it('finishes the rollout after a controller restart mid-replacement, still one node at a time', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    await lab.run(5_000);
    setAmi(lab, AMI_131);
    await lab.run(60_000, 1_000);
    expect(disruptedNodes(lab)).toHaveLength(1);
    lab.stop();
    lab.start();
    await lab.run(30 * 60_000, 1_000, () => expect(disruptedNodes(lab!).length).toBeLessThanOrEqual(1));
    expect(new Set(lab.karpenterNodes().map((n) => n.status.nodeInfo.kubeletVersion))).toEqual(new Set([KUBELET_131]));
    expect(lab.claims().every((c) => !c.metadata.deletionTimestamp && c.status.imageID === AMI_131)).toBe(true);
    expect(lab.pods().filter((p) => p.status?.phase === 'Running')).toHaveLength(10);
  });
});
