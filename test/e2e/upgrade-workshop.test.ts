import { DescribeAddonCommand, DescribeNodegroupCommand, ListNodegroupsCommand } from '@aws-sdk/client-eks';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, blocksJson, readStepMessage, repliesOf, statusCard, stepMessagesOf, stepMessageTitled, type AnsweredGate } from '../support/e2e-thread.js';

/**
 * Issue 5, "How it will be checked" — the workshop (seed 004) 1.25 → 1.26 with blue-mng blue/green, driven from
 * Slack: the requester types `/eks-upgrade start`, an approver answers every gate on the cards the bot posts
 * (Force with a typed reason where the card asks for it, the remedy on the orders-pdb card, Continue elsewhere).
 * The whole upgrade runs once (beforeAll); each test checks one thing a person would notice in the thread, in the
 * timeline file, or in the cluster (through the real EKS SDK and client-node, as an operator would look).
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';
const BLUE = 'blue-mng-20250325023020754500000029';
const CUSTOM = 'custom-20250401115802906700000007';
const SELF_MANAGED = 'default-selfmng-2025032502302075740000002b';
const FORCE_REASON = 'the ui HPA moves to autoscaling/v2 today; agreed in #platform';

let stack: E2eStack;
let gates: AnsweredGate[];
let summary: FakeMessage;
let ordersPod: string;
let replies: FakeMessage[];

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'workshop',
    speed: 600,
    clusters: [
      {
        name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true,
        karpenter: { upgradeBudget: '1' },
        nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } },
      },
    ],
  });
  const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: 'orders', labelSelector: 'app.kubernetes.io/component=service' });
  ordersPod = pods.items[0].metadata!.name!;

  const started = await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.26`, userId: 'U0REQ', channelId: CHANNEL });
  expect(started.status).toBe(200);
  ({ gates, summary } = await answerGatesUntilSummary(stack.fake, {
    channel: CHANNEL,
    approver: 'U0APP',
    timeoutMs: 100_000,
    decide: (gate) => {
      if (gate.actions.includes('gate:remedy')) return { action: 'remedy' };
      // Preflight errors and the custom-AMI group are only passable with Force (and a reason), as a person would.
      if (!gate.actions.includes('gate:continue') && gate.actions.includes('gate:force')) return { action: 'force', reason: FORCE_REASON };
      return { action: 'continue' };
    },
  }));
  // The timeline file is the last post; the status card's final edit may come just before or after it.
  await stack.fake.waitFor((f) => f.files().some((file) => file.threadTs !== undefined && file.text.length > 0) && /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? ''), { timeoutMs: 15_000 });
  replies = repliesOf(stack.fake, CHANNEL);
}, 150_000);

describe('deployment permissions', () => {
  it('ran the whole upgrade under deploy/iam/permissions-policy.json and deploy/rbac/cluster-role.yaml with nothing refused', () => {
    expect(stack.deniedCalls()).toEqual([]);
  });
});

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

const texts = () => replies.map((r) => r.text);
const gate = (suffix: string) => gates.find((g) => g.gateId.endsWith(suffix));

describe('workshop 1.25 → 1.26 from Slack (blue-mng blue/green)', () => {
  it('shows each step as one message that ends ✅ with its duration, and ends with the summary card', () => {
    const steps = ['preflight for 1.26', 'control plane to 1.26', 'add-ons for 1.26', 'managed node groups to 1.26', 'Karpenter nodes to 1.26', 'self-managed node groups to 1.26', 'Fargate workloads to 1.26', 'verify 1.26'];
    // One message per step (gate steps included), in the order the steps ran, each edited to its end.
    const views = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
    expect(views.map((v) => v?.title).filter((title) => steps.includes(title!))).toEqual(steps);
    for (const view of views) {
      expect(view?.state, view?.title).toBe('finished');
      expect(view?.duration, view?.title).toMatch(/^(<1s|\d+s|\d+m( \d+s)?)$/);
    }
    expect(summary.text).toMatch(/^Upgrade 1\.25 → 1\.26: ✅ Succeeded/);
    expect(blocksJson(summary)).toMatch(/Step\s+Duration\s+Outcome/);
    expect(blocksJson(summary)).toMatch(/managed node groups to 1\.26\s+\d+s\s+done/);
    const card = statusCard(stack.fake, CHANNEL)!;
    expect(card.text).toMatch(/EKS upgrade · eksworkshop-eksctl 1\.25 → 1\.26: Succeeded/);
    expect(blocksJson(card)).not.toMatch(/job:pause|job:abort/); // a finished job has no controls
  });

  it('asks for the preflight errors to be forced, through the reason modal, and records who forced them', () => {
    const preflight = gate('-preflight')!;
    expect(preflight.labels).toEqual(['Force', 'Abort']);
    expect(preflight.shown).toMatch(/INS001 error: autoscaling\/v2beta2 horizontalpodautoscalers is still in use/);
    expect(preflight.shown).toMatch(/K8S004 error: Deployment orders\/orders has 1 replica and PDB orders-pdb/);
    expect(stack.fake.modals().filter((m) => m.state === 'submitted' && m.view.callback_id === 'force-reason').length).toBe(1);
    expect(blocksJson(preflight.message)).toContain(`Forced by <@U0APP>`);
    expect(blocksJson(preflight.message)).toContain(FORCE_REASON);
  });

  it('surfaces the orders-pdb block naming the pod and the PDB, with the remedy button; the remedy scales orders to 2', async () => {
    const drain = gate('-drain')!;
    expect(drain.gateId).toBe(`h1-bg-${BLUE}-drain`);
    expect(drain.shown).toContain(`pod orders/${ordersPod}`);
    expect(drain.shown).toContain('PDB orders/orders-pdb (0 disruptions allowed)');
    expect(drain.labels).toContain('Scale orders to 2 replicas');
    expect(blocksJson(drain.message)).toContain('\\"Scale orders to 2 replicas\\" chosen by <@U0APP>');
    // (Progress replies of one step may be coalesced in the thread; the exported timeline keeps every one.)
    expect(stack.fake.files()[0]?.text).toContain('h1-managed-nodegroups: Scale orders to 2 replicas: scaled orders/orders to 2 replicas.');
    const apps = stack.kubeConfig(CLUSTER).makeApiClient(k8s.AppsV1Api);
    expect((await apps.readNamespacedDeployment({ name: 'orders', namespace: 'orders' })).spec?.replicas).toBe(2);
  });

  // Issue 5 asks for Force on every PodEvictionFailure card ("PDB blocks handled as above"), blue/green included.
  it('offers Force on the orders-pdb card too', () => {
    expect(gate('-drain')!.labels).toContain('Force');
  });

  it('moves every installed add-on to the 1.26 default (DescribeAddon through the real SDK)', async () => {
    const eks = stack.eksClient();
    const version = async (addonName: string) => (await eks.send(new DescribeAddonCommand({ clusterName: CLUSTER, addonName }))).addon?.addonVersion;
    expect(await version('coredns')).toBe('v1.9.3-eksbuild.22');
    expect(await version('kube-proxy')).toBe('v1.26.15-eksbuild.24');
    expect(await version('vpc-cni')).toBe('v1.19.3-eksbuild.1'); // already the 1.26 default, left alone
    expect((await stack.acceptedCalls('UpdateAddon')).map((c) => c.target).sort()).toEqual(['coredns', 'kube-proxy']);
  });

  it('issues exactly one control-plane version update', async () => {
    expect(await stack.acceptedCalls('UpdateClusterVersion')).toHaveLength(1);
    expect(stack.sim.world.cluster(CLUSTER)?.version).toBe('1.26');
  });

  it('replaces blue-mng by a green group at 1.26 and the orders pods run on it', async () => {
    const eks = stack.eksClient();
    const names = (await eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER, maxResults: 100 }))).nodegroups ?? [];
    expect(names).not.toContain(BLUE);
    const green = names.find((name) => name.startsWith(BLUE))!;
    expect(green).toBeDefined();
    const described = (await eks.send(new DescribeNodegroupCommand({ clusterName: CLUSTER, nodegroupName: green }))).nodegroup!;
    expect(described.version).toBe('1.26');
    expect(described.labels).toEqual({ type: 'OrdersMNG' });
    const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
    const greenNodes = new Set((await core.listNode({ labelSelector: `eks.amazonaws.com/nodegroup=${green}` })).items.map((n) => n.metadata!.name!));
    const orders = (await core.listNamespacedPod({ namespace: 'orders' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    expect(orders.length).toBeGreaterThanOrEqual(3); // orders ×2, orders-mysql
    expect(orders.every((p) => p.status?.phase === 'Running' && greenNodes.has(p.spec!.nodeName!))).toBe(true);
  });

  it('restarts the Fargate assets pods onto 1.26 nodes', async () => {
    const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
    const pods = (await core.listNamespacedPod({ namespace: 'assets' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) {
      const node = await core.readNode({ name: pod.spec!.nodeName! });
      expect(node.metadata?.labels?.['eks.amazonaws.com/compute-type']).toBe('fargate');
      expect(node.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.26\./);
      expect(pod.status?.phase).toBe('Running');
    }
  });

  it('moves the custom-AMI group to 1.26 with a launch template version of the AMI clusters.yaml names, without a gate', async () => {
    expect(gate('-custom-ami')).toBeUndefined();
    const described = (await stack.eksClient().send(new DescribeNodegroupCommand({ clusterName: CLUSTER, nodegroupName: CUSTOM }))).nodegroup!;
    expect(described).toMatchObject({ version: '1.26', releaseVersion: 'ami-0c0a1b2c3d4e5f126', launchTemplate: { version: '2' } });
    // (Progress replies of one step may be coalesced in the thread; the exported timeline keeps every one.)
    expect(stack.fake.files()[0]?.text).toContain(`${CUSTOM}: launch template custom-20250401115802906700000005 version 2 created from version 1 with ami-0c0a1b2c3d4e5f126 (SSM /eks-upgrade-bot/amis/workshop/1.26/image_id (clusters.yaml amiParameter)).`);
    const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
    const nodes = (await core.listNode({ labelSelector: `eks.amazonaws.com/nodegroup=${CUSTOM}` })).items;
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((n) => n.status?.nodeInfo?.kubeletVersion?.startsWith('v1.26.'))).toBe(true);
  });

  it('replaces the self-managed carts nodes with 1.26 ones, carts available throughout and the capacity unchanged', async () => {
    expect(stepMessageTitled(stack.fake, CHANNEL, 'self-managed node groups to 1.26')?.detail).toContain(`${SELF_MANAGED}: 2/2 nodes at 1.26 (launch template version 2, rolling), desired capacity 2`);
    const core = stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api);
    const nodes = (await core.listNode({ labelSelector: 'node.kubernetes.io/lifecycle=self-managed' })).items;
    expect(nodes.map((n) => n.status?.nodeInfo?.kubeletVersion?.slice(0, 6))).toEqual(['v1.26.', 'v1.26.']);
    const minimum = stack.sim.world.pdbMinimums.get(`${CLUSTER}/carts/carts-pdb`);
    expect(minimum?.minHealthy).toBeGreaterThanOrEqual(1);
    expect(stack.sim.world.autoScalingGroups.get(SELF_MANAGED)?.desiredCapacity).toBe(2);
    expect(await stack.acceptedCalls('TerminateInstanceInAutoScalingGroup')).toHaveLength(2);
  });

  it('attaches a Markdown timeline to the thread that names who approved, forced and chose the remedy', () => {
    const file = stack.fake.files().find((f) => f.name.endsWith('.md'))!;
    expect(file.threadTs).toBe(statusCard(stack.fake, CHANNEL)!.ts);
    expect(file.text).toMatch(/^# EKS upgrade timeline · eksworkshop-eksctl 1\.25 → 1\.26/);
    // People by name with their ID, read with users.info (issue 25).
    expect(file.text).toMatch(/- Requested by: @requester \(U0REQ\)/);
    expect(file.text).toMatch(/- Result: Succeeded/);
    const decision = (title: RegExp) => file.text.split('\n').find((line) => line.startsWith('| ') && title.test(line)) ?? '';
    expect(decision(/Preflight for eksworkshop-eksctl/)).toMatch(/\| forced \| @approver \(U0APP\) \| .* \| the ui HPA moves to autoscaling\/v2 today/);
    expect(decision(/Upgrade the control plane/)).toMatch(/\| approved \| @approver \(U0APP\) \|/);
    // The blue/green gate asks the plan's question (issue 23).
    expect(decision(/Delete blue node group blue-mng-\S+ \(\d+ nodes?\) now that its 1\.26 clone is Ready\?/)).toMatch(/\| approved \| @approver \(U0APP\) \|/);
    expect(decision(/Deleting blue-mng.* is blocked/)).toMatch(/\| remedy chosen \| @approver \(U0APP\) \|/);
  });
});
