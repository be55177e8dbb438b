import { afterEach, describe, expect, it } from 'vitest';
import { createLab } from './sim-karpenter-fixture.js';

type Lab = ReturnType<typeof createLab>;
let lab: Lab | undefined;
afterEach(() => lab?.stop());

describe('WhenEmpty consolidation', () => {
  it('removes nodes left empty for consolidateAfter, within the Empty budget', async () => {
    lab = createLab({ budgets: [{ nodes: '1' }] });
    lab.start();
    await lab.run(60_000, 5_000);
    expect(lab.karpenterNodes()).toHaveLength(2);
    lab.store.mutate('deployments', 'checkout', 'checkout', (d) => {
      d.spec.replicas = 0;
    });
    await lab.run(20_000, 1_000);
    expect(lab.karpenterNodes()).toHaveLength(2); // consolidateAfter is 30s
    await lab.run(5 * 60_000, 1_000, () => {
      expect(lab!.karpenterNodes().filter((n) => (n.spec.taints ?? []).some((t: any) => t.key === 'karpenter.sh/disrupted')).length).toBeLessThanOrEqual(1);
    });
    expect(lab.karpenterNodes()).toHaveLength(0);
    expect(lab.claims()).toHaveLength(0);
    const disrupting = lab.logs.filter((l) => l.message === 'disrupting node(s)');
    expect(disrupting.map((l) => [l.reason, l.decision])).toEqual([['empty', 'delete'], ['empty', 'delete']]);
  });

  it('keeps empty nodes when consolidateAfter is Never', async () => {
    lab = createLab({ replicas: 0 });
    lab.store.mutate('nodepools', 'default', undefined, (np) => {
      np.spec.disruption.consolidateAfter = 'Never';
    });
    lab.start();
    await lab.run(10 * 60_000, 10_000);
    expect(lab.karpenterNodes()).toHaveLength(2);
  });
});
