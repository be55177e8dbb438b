import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, statusCard, stepMessageTitled, type AnsweredGate } from '../support/e2e-thread.js';

/**
 * Issue 5, "How it will be checked" — the Karpenter drift lab (seed 000), 1.30 → 1.31 with `upgradeBudget: "1"`,
 * driven from Slack. While the bot works, the test watches every change to the cluster's nodes and NodePools (the
 * simulator's store, event by event) to prove that no two Karpenter nodes are ever disrupted at once, and that the
 * NodePool carried the upgrade budget during the drift and its own budget (nodes 10%) afterwards.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';
const DISRUPTED = 'karpenter.sh/disrupted';

let stack: E2eStack;
let gates: AnsweredGate[];
let summary: FakeMessage;
let maxDisrupted = 0;
const disruptedAtOnce: string[][] = [];
const budgetsSeen: string[] = [];
let originalCheckoutNodes: string[];

/** A Karpenter node that is being disrupted: tainted karpenter.sh/disrupted or already being deleted. */
function isDisrupted(node: KubeObject): boolean {
  return Boolean(node.metadata.deletionTimestamp) || (node.spec?.taints ?? []).some((t: { key: string }) => t.key === DISRUPTED);
}

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'karpenter-lab',
    speed: 400,
    clusters: [
      { name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, karpenter: { upgradeBudget: '1' } },
    ],
  });
  const store = stack.sim.world.kube(CLUSTER)!;
  originalCheckoutNodes = store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default').map((n) => n.metadata.name);
  budgetsSeen.push(JSON.stringify(store.get('nodepools', 'default')?.spec?.disruption?.budgets ?? []));
  const disrupted = new Set<string>();
  store.subscribe((event) => {
    if (event.resource === 'nodepools' && event.type !== 'DELETED') {
      const budgets = JSON.stringify(event.object.spec?.disruption?.budgets ?? []);
      if (budgetsSeen.at(-1) !== budgets) budgetsSeen.push(budgets);
    }
    if (event.resource !== 'nodes' || !event.object.metadata.labels?.['karpenter.sh/nodepool']) return;
    const name = event.object.metadata.name;
    if (event.type !== 'DELETED' && isDisrupted(event.object)) disrupted.add(name);
    else disrupted.delete(name);
    if (disrupted.size > maxDisrupted) maxDisrupted = disrupted.size;
    if (disrupted.size > 1) disruptedAtOnce.push([...disrupted]);
  });

  await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.31`, userId: 'U0REQ', channelId: CHANNEL });
  ({ gates, summary } = await answerGatesUntilSummary(stack.fake, {
    channel: CHANNEL,
    approver: 'U0APP',
    timeoutMs: 90_000,
    decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'lab cluster, findings reviewed by the platform team' }),
  }));
  await stack.fake.waitFor((f) => f.files().some((file) => file.threadTs !== undefined && file.text.length > 0) && /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? ''), { timeoutMs: 15_000 });
}, 120_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('karpenter-lab 1.30 → 1.31 from Slack with upgradeBudget "1"', () => {
  it('runs under deploy/iam/permissions-policy.json and deploy/rbac/cluster-role.yaml with nothing refused', () => {
    expect(stack.deniedCalls()).toEqual([]);
  });

  it('exports what it did at /metrics: the upgrade, its steps, and its AWS and Kubernetes calls', async () => {
    const text = await (await fetch(`http://127.0.0.1:${stack.bot.port}/metrics`)).text();
    // The sample whose name matches and whose labels include `labels` (label order is the library's business).
    const value = (name: string, labels: Record<string, string> = {}) => {
      for (const line of text.split('\n')) {
        const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const has = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
        if (Object.entries(labels).every(([k, v]) => has[k] === v)) return Number(match[3]);
      }
      return Number.NaN;
    };
    expect(value('eks_upgrade_upgrades_total', { state: 'succeeded', role: 'all' })).toBe(1);
    expect(value('eks_upgrade_commands_total', { subcommand: 'start', outcome: 'ok' })).toBe(1);
    expect(value('eks_upgrade_step_duration_seconds_count', { kind: 'karpenter', outcome: 'done' })).toBe(1);
    expect(value('eks_upgrade_aws_calls_total', { service: 'eks', operation: 'UpdateClusterVersion' })).toBe(1);
    expect(value('eks_upgrade_kube_calls_total', { verb: 'patch', resource: 'nodepools' })).toBeGreaterThanOrEqual(2); // budget set, then restored
    expect(value('eks_upgrade_gate_wait_seconds_count')).toBe(gates.length);
    expect(value('eks_upgrade_outbox_send_seconds_count', { outcome: 'ok' })).toBeGreaterThan(5);
    expect(value('eks_upgrade_outbox_depth')).toBe(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('succeeds, with the control plane updated once', async () => {
    expect(summary.text).toMatch(/^Upgrade 1\.30 → 1\.31: ✅ Succeeded/);
    expect(gates.map((g) => g.gateId)).toContain('h1-control-plane');
    expect(await stack.acceptedCalls('UpdateClusterVersion')).toHaveLength(1);
  });

  it('ends with both checkout nodes replaced at 1.31 and every checkout pod Running on them', async () => {
    const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
    const nodes = (await core.listNode({ labelSelector: 'karpenter.sh/nodepool=default' })).items;
    expect(nodes).toHaveLength(2);
    for (const node of nodes) {
      expect(node.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.31\./);
      expect(originalCheckoutNodes).not.toContain(node.metadata!.name);
    }
    const names = new Set(nodes.map((n) => n.metadata!.name!));
    const pods = (await core.listNamespacedPod({ namespace: 'checkout' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    expect(pods).toHaveLength(11); // checkout ×10 and checkout-redis
    for (const pod of pods) {
      expect(pod.status?.phase).toBe('Running');
      expect(names.has(pod.spec!.nodeName!)).toBe(true);
    }
  });

  it('says "NodeClaims replaced 2/2" in the thread', () => {
    const karpenter = stepMessageTitled(stack.fake, CHANNEL, 'Karpenter nodes to 1.31');
    expect(karpenter?.state).toBe('finished');
    expect(karpenter?.detail).toMatch(/NodeClaims replaced 2\/2/);
  });

  it('never disrupts two Karpenter nodes at once', () => {
    expect(maxDisrupted).toBe(1); // one at a time, and the drift did happen
    expect(disruptedAtOnce).toEqual([]);
  });

  it('uses the upgrade budget during the drift and puts the NodePool\'s own budget back afterwards', async () => {
    expect(budgetsSeen[0]).toBe(JSON.stringify([{ nodes: '10%' }]));
    expect(budgetsSeen).toContain(JSON.stringify([{ nodes: '1' }]));
    const custom = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CustomObjectsApi);
    const pool = (await custom.getClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'default' })) as KubeObject;
    expect(pool.spec?.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    expect(stepMessageTitled(stack.fake, CHANNEL, 'Karpenter nodes to 1.31')?.detail).toMatch(/budgets restored on default \(nodes 10%\)/);
  });
});
