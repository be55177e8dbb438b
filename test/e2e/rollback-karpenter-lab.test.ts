import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { trackDisruptedPerPool, upgradeThenRollback } from '../support/karpenter-rollback-drill.js';

/**
 * Issue 10 on the Karpenter drift lab: upgrade 1.30 → 1.31 from Slack, then `rollback`. The EC2NodeClass that pins
 * an AMI goes back to the 1.30 AMI before the control plane moves, its nodes drift back under the upgrade budget
 * ("1": the test watches every node event and counts the nodes disrupted at once), and the NodePool's own budget is
 * back at the end.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';

let stack: E2eStack;
let rollbackSummary: FakeMessage;
let rollingBack = false;
let maxDisrupted: Record<string, number>;
const budgetsSeen: string[] = [];
let amiTermsBefore: string;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'karpenter-lab',
    speed: 400,
    clusters: [{ name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, karpenter: { upgradeBudget: '1' } }],
  });
  const store = stack.sim.world.kube(CLUSTER)!;
  maxDisrupted = trackDisruptedPerPool(stack, CLUSTER, () => rollingBack);
  amiTermsBefore = JSON.stringify(store.get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms);
  budgetsSeen.push(JSON.stringify(store.get('nodepools', 'default')?.spec?.disruption?.budgets ?? []));
  store.subscribe((event) => {
    if (event.resource === 'nodepools' && event.type !== 'DELETED' && rollingBack) {
      const budgets = JSON.stringify(event.object.spec?.disruption?.budgets ?? []);
      if (budgetsSeen.at(-1) !== budgets) budgetsSeen.push(budgets);
    }
  });
  rollbackSummary = await upgradeThenRollback(stack, { cluster: CLUSTER, channel: CHANNEL, between: () => (rollingBack = true) });
}, 200_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('karpenter-lab 1.31 → 1.30 rollback', () => {
  it('succeeds with the control plane and every Karpenter node at 1.30', () => {
    expect(rollbackSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect(stack.sim.world.cluster(CLUSTER)?.version).toBe('1.30');
    const nodes = stack.sim.world.kube(CLUSTER)!.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.map((n) => String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6)).every((v) => v === 'v1.30.')).toBe(true);
  });

  it('points the EC2NodeClass back at a 1.30 AMI and never disrupts two Karpenter nodes at once', () => {
    expect(JSON.stringify(stack.sim.world.kube(CLUSTER)!.get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms)).toBe(amiTermsBefore);
    expect(maxDisrupted).toEqual({ default: 1 });
  });

  it('holds the upgrade budget during the drift and puts the NodePool\'s own budget back', () => {
    expect(budgetsSeen).toContain(JSON.stringify([{ nodes: '1' }]));
    expect(budgetsSeen.at(-1)).toBe(budgetsSeen[0]);
    expect(stack.deniedCalls()).toEqual([]);
  });
});
