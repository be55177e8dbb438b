import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { rollbackCardOf } from '../support/e2e-thread.js';
import { trackDisruptedPerPool, upgradeThenRollback } from '../support/karpenter-rollback-drill.js';

/**
 * Issue 10 with one EC2NodeClass per AMI selector kind (karpenter-selectors): upgrade 1.30 → 1.31 from Slack, then
 * `rollback`. Each class the upgrade changed goes back to exactly the terms it had before (the SSM-parameter class
 * gets its `ssmParameter` back, not an id), recorded by the upgrade job; the alias class is pinned to the 1.30 AMI so
 * its nodes are at 1.30 BEFORE the control-plane rollback, then gets its alias back; the budget ("1") is never
 * exceeded in any NodePool and each NodePool's own budget is back at the end.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';
const CLASSES = ['default', 'by-alias', 'by-ssm', 'by-tags'];

let stack: E2eStack;
let rollbackSummary: FakeMessage;
let rollingBack = false;
const termsBefore: Record<string, string> = {};
const termsAfterUpgrade: Record<string, string> = {};
const budgetsBefore: Record<string, string> = {};
/** Per NodePool, the most of its nodes seen disrupted at once during the rollback. */
let maxDisrupted: Record<string, number>;
/** Sim time at which the last by-alias node still on a 1.31 kubelet went away, during the rollback. */
let lastAliasNodeAt131 = 0;
/** Terms of by-alias seen during the rollback, in order. */
const aliasTermsSeen: string[] = [];

const terms = (name: string): string => JSON.stringify(stack.sim.world.kube(CLUSTER)!.get('ec2nodeclasses', name)?.spec?.amiSelectorTerms);

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'karpenter-selectors',
    speed: 400,
    clusters: [{ name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, karpenter: { upgradeBudget: '1' } }],
  });
  const store = stack.sim.world.kube(CLUSTER)!;
  // One small workload per pool the bot drives, so each keeps a node through the drifts (an empty node is removed).
  for (const pool of ['by-alias', 'by-ssm']) {
    store.create('deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: `app-${pool}`, namespace: 'default', labels: { app: `app-${pool}` } },
      spec: {
        replicas: 1, selector: { matchLabels: { app: `app-${pool}` } },
        template: { metadata: { labels: { app: `app-${pool}` } }, spec: { nodeSelector: { 'karpenter.sh/nodepool': pool }, containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] } },
      },
    } as KubeObject);
  }
  for (const name of CLASSES) termsBefore[name] = terms(name);
  for (const pool of store.list('nodepools')) budgetsBefore[pool.metadata.name] = JSON.stringify(pool.spec?.disruption?.budgets ?? []);
  maxDisrupted = trackDisruptedPerPool(stack, CLUSTER, () => rollingBack);
  store.subscribe((event) => {
    if (!rollingBack) return;
    if (event.resource === 'ec2nodeclasses' && event.object.metadata.name === 'by-alias') {
      const seen = JSON.stringify(event.object.spec?.amiSelectorTerms);
      if (aliasTermsSeen.at(-1) !== seen) aliasTermsSeen.push(seen);
    }
    const pool = event.object.metadata.labels?.['karpenter.sh/nodepool'];
    if (event.resource === 'nodes' && pool === 'by-alias' && event.type === 'DELETED' && String(event.object.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.')) lastAliasNodeAt131 = stack.sim.clock.now();
  });
  rollbackSummary = await upgradeThenRollback(stack, {
    cluster: CLUSTER,
    channel: CHANNEL,
    between: () => {
      for (const name of CLASSES) termsAfterUpgrade[name] = terms(name);
      rollingBack = true;
    },
  });
}, 200_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('karpenter-selectors 1.31 → 1.30 rollback', () => {
  it('succeeds with the control plane and every Karpenter node at 1.30', () => {
    expect(rollbackSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect(stack.sim.world.cluster(CLUSTER)?.version).toBe('1.30');
    const nodes = stack.sim.world.kube(CLUSTER)!.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']);
    expect([...new Set(nodes.map((n) => `${n.metadata.labels?.['karpenter.sh/nodepool']} ${String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6)}`))].sort()).toEqual(
      ['by-alias v1.30.', 'by-ssm v1.30.', 'by-tags v1.30.', 'default v1.30.'],
    );
  });

  it('puts every EC2NodeClass back exactly as it was before the upgrade (the recorded terms, not an SSM id)', () => {
    // The upgrade had changed the SSM-parameter class to an id: the rollback restores the parameter itself.
    expect(termsAfterUpgrade['by-ssm']).toMatch(/"id":"ami-/);
    for (const name of CLASSES) expect({ name, terms: terms(name) }).toEqual({ name, terms: termsBefore[name] });
  });

  it('pins the alias class to the 1.30 AMI, has its nodes at 1.30 before the control-plane rollback, then puts the alias back', async () => {
    expect(aliasTermsSeen).toEqual([expect.stringMatching(/^\[\{"id":"ami-[0-9a-f]+"\}\]$/), termsBefore['by-alias']]);
    const [rollback] = await stack.acceptedCalls('UpdateClusterVersion').then((calls) => calls.filter((call) => call.target === '1.30'));
    expect(rollback).toBeDefined();
    expect(lastAliasNodeAt131).toBeGreaterThan(0);
    expect(lastAliasNodeAt131).toBeLessThan(rollback.at);
    const thread = rollbackCardOf(stack.fake, CHANNEL)!.replies.map((reply) => reply.text).join('\n');
    expect(thread).toMatch(/EC2NodeClass by-alias: amiSelectorTerms → alias al2023@latest again/);
  });

  it('never disrupts more nodes of a NodePool at once than the budget and puts each NodePool\'s own budget back', () => {
    expect(Object.keys(maxDisrupted).sort()).toEqual(['by-alias', 'by-ssm', 'default']);
    for (const [pool, max] of Object.entries(maxDisrupted)) expect({ pool, max }).toEqual({ pool, max: 1 });
    for (const pool of stack.sim.world.kube(CLUSTER)!.list('nodepools')) {
      expect(JSON.stringify(pool.spec?.disruption?.budgets ?? [])).toBe(budgetsBefore[pool.metadata.name]);
    }
    expect(stack.deniedCalls()).toEqual([]);
  });
});
