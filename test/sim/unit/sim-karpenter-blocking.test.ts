import { afterEach, describe, expect, it } from 'vitest';
import { AMI_131, KUBELET_131, createLab } from './sim-karpenter-fixture.js';

type Lab = ReturnType<typeof createLab>;
let lab: Lab | undefined;
afterEach(() => lab?.stop());

function driftAll(target: Lab) {
  target.store.mutate('ec2nodeclasses', 'default', undefined, (nc) => {
    nc.spec.amiSelectorTerms = [{ id: AMI_131 }];
  });
}

const tainted = (target: Lab, name: string) =>
  (target.store.get('nodes', name)?.spec?.taints ?? []).some((t: any) => t.key === 'karpenter.sh/disrupted');

describe('what keeps Karpenter from disrupting a drifted node', () => {
  it('a pod annotated karpenter.sh/do-not-disrupt pins its node, with the exact DisruptionBlocked message', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    await lab.run(10_000);
    const [pinned, other] = lab.seeded.map((s) => s.node.metadata.name);
    const pod = lab.pods().find((p) => p.spec.nodeName === pinned)!;
    lab.store.mutate('pods', pod.metadata.name, 'checkout', (p) => {
      p.metadata.annotations = { ...(p.metadata.annotations ?? {}), 'karpenter.sh/do-not-disrupt': 'true' };
    });
    driftAll(lab);
    await lab.run(15 * 60_000, 2_000, () => expect(tainted(lab!, pinned)).toBe(false));

    expect(lab.store.get('nodes', pinned)).toBeDefined();
    expect(lab.store.get('nodes', other)).toBeUndefined();
    const message = `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/${pod.metadata.name})`;
    const blocked = lab.events('DisruptionBlocked').filter((e: any) => e.message === message);
    expect(blocked.map((e: any) => e.involvedObject.kind).sort()).toEqual(['Node', 'NodeClaim']);
    expect(blocked.find((e: any) => e.involvedObject.kind === 'Node')).toMatchObject({
      involvedObject: { name: pinned }, metadata: { namespace: 'default' }, source: { component: 'karpenter' }, type: 'Normal',
    });
  });

  it('a node annotated karpenter.sh/do-not-disrupt is left alone', async () => {
    lab = createLab({ budgets: [{ nodes: '2' }] });
    lab.start();
    const [pinned] = lab.seeded.map((s) => s.node.metadata.name);
    lab.store.mutate('nodes', pinned, undefined, (n) => {
      n.metadata.annotations = { ...n.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' };
    });
    driftAll(lab);
    await lab.run(10 * 60_000, 5_000);
    expect(tainted(lab, pinned)).toBe(false);
    expect(lab.events('DisruptionBlocked').map((e: any) => e.message)).toContain('Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation');
  });

  it('a PDB with no disruptions allowed blocks every node its pods run on', async () => {
    lab = createLab({ budgets: [{ nodes: '2' }] });
    lab.store.create('poddisruptionbudgets', {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'checkout-pdb', namespace: 'checkout' },
      spec: { minAvailable: 10, selector: { matchLabels: { app: 'checkout' } } },
    });
    lab.start();
    const before = lab.claims().map((c) => c.metadata.name).sort();
    driftAll(lab);
    await lab.run(10 * 60_000, 5_000);
    expect(lab.claims().map((c) => c.metadata.name).sort()).toEqual(before);
    const messages = lab.events('DisruptionBlocked').filter((e: any) => e.involvedObject.kind === 'Node').map((e: any) => e.message);
    expect(messages).toEqual(['Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])', 'Pdb prevents pod evictions (PodDisruptionBudget=[checkout/checkout-pdb])']);
  });

  it('a PDB that allows one disruption slows the drain: 429s are retried and reported as FailedDraining', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.store.create('poddisruptionbudgets', {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'checkout-pdb', namespace: 'checkout' },
      spec: { minAvailable: 9, selector: { matchLabels: { app: 'checkout' } } },
    });
    lab.start();
    await lab.run(10_000);
    driftAll(lab);
    await lab.run(40 * 60_000, 2_000, () => {
      const unavailable = 10 - lab!.pods().filter((p) => !p.metadata.deletionTimestamp && (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
      expect(unavailable).toBeLessThanOrEqual(1); // the PDB keeps 9 of 10 checkout pods Ready throughout
    });
    const failed = lab.events('FailedDraining');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({ type: 'Warning', message: expect.stringMatching(/^Failed to drain node, evicting pod violates a PDB \(Pod=checkout\/checkout-/) });
    expect(new Set(lab.karpenterNodes().map((n) => n.status.nodeInfo.kubeletVersion))).toEqual(new Set([KUBELET_131]));
  });
});
