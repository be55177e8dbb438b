import { afterEach, describe, expect, it } from 'vitest';
import { amiIdFor, kubeletVersionFor } from '../../../src/sim/aws/eks/version-catalog.js';
import { createLab } from './sim-karpenter-fixture.js';

type Lab = ReturnType<typeof createLab>;
let lab: Lab | undefined;
afterEach(() => lab?.stop());

const driftReasons = (target: Lab, names = target.claims().map((c) => c.metadata.name)) =>
  names.map((name) => (target.store.get('nodeclaims', name)?.status.conditions ?? []).find((x: any) => x.type === 'Drifted')?.reason);
const seededClaims = (target: Lab) => target.seeded.map((s) => s.nodeClaim.metadata.name);

describe('drift that follows the cluster and the NodePool', () => {
  it('an al2023@latest alias resolves to the AMI of the control plane version, so an upgrade drifts the nodes', async () => {
    lab = createLab({ amiSelectorTerms: [{ alias: 'al2023@latest' }], budgets: [{ nodes: '1' }] });
    lab.start();
    const amis = () => lab!.store.get('ec2nodeclasses', 'default')!.status.amis;
    expect(amis()).toEqual([
      expect.objectContaining({ id: amiIdFor('1.30', 'AL2023'), name: expect.stringContaining('al2023-x86_64-standard-1.30'), requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }),
      expect.objectContaining({ id: amiIdFor('1.30', 'AL2023', 'arm64') }),
    ]);
    expect(lab.claims().map((c) => c.status.imageID)).toEqual([amiIdFor('1.30', 'AL2023'), amiIdFor('1.30', 'AL2023')]);

    lab.cluster.version = '1.31';
    // Karpenter re-reads the SSM parameters behind an alias every 5 minutes.
    await lab.run(5 * 60_000 + 20_000, 10_000);
    expect(amis().map((a: any) => a.id)).toEqual([amiIdFor('1.31', 'AL2023'), amiIdFor('1.31', 'AL2023', 'arm64')]);
    expect(driftReasons(lab)).toContain('AMIDrift');

    await lab.run(30 * 60_000, 2_000);
    expect(new Set(lab.karpenterNodes().map((n) => n.status.nodeInfo.kubeletVersion))).toEqual(new Set([kubeletVersionFor('1.31')]));
    expect(lab.messages().filter((m) => m === 'deleted nodeclaim')).toHaveLength(2);
  });

  it('a NodePool template change drifts its nodes (NodePoolDrifted) and replacements carry the new template', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    await lab.run(10_000);
    lab.store.mutate('nodepools', 'default', undefined, (np) => {
      np.spec.template.metadata.labels.tier = 'payments';
    });
    await lab.run(20_000, 10_000);
    expect(driftReasons(lab, seededClaims(lab))).toEqual(['NodePoolDrifted', 'NodePoolDrifted']);
    await lab.run(30 * 60_000, 2_000);
    expect(lab.karpenterNodes().map((n) => n.metadata.labels?.tier)).toEqual(['payments', 'payments']);
    expect(driftReasons(lab)).toEqual([undefined, undefined]);
  });

  it('widening the NodePool requirements does not drift nodes that still satisfy them', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    lab.store.mutate('nodepools', 'default', undefined, (np) => {
      np.spec.template.spec.requirements[0].values.push('m6a.xlarge');
    });
    await lab.run(60_000, 10_000);
    expect(driftReasons(lab)).toEqual([undefined, undefined]);
    lab.store.mutate('nodepools', 'default', undefined, (np) => {
      np.spec.template.spec.requirements[0].values = ['c6a.large'];
    });
    await lab.run(20_000, 10_000);
    expect(driftReasons(lab, seededClaims(lab))).toEqual(['RequirementsDrifted', 'RequirementsDrifted']);
  });
});
