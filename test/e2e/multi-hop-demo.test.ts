import { DescribeClusterCommand, DescribeNodegroupCommand } from '@aws-sdk/client-eks';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, blocksJson, statusCard, type AnsweredGate } from '../support/e2e-thread.js';

/**
 * `/eks-upgrade start demo --to 1.32` from Slack, two minors ahead: the real bot (Bolt, BullMQ worker on the real
 * Redis, thread outbox) on real time with a short AWS poll, the simulated demo cluster at high speed, the fake Slack
 * signing the command and the approver's clicks. The job runs hop after hop — preflight, gate, control plane,
 * add-ons, node group, verify for 1.31, then again for 1.32 — and the thread shows both.
 */
const CHANNEL = 'C0DEMO';
let stack: E2eStack;
let gates: AnsweredGate[];
let summary: FakeMessage;
let confirmation: string;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'demo',
    speed: 600,
    clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
  });
  const started = await stack.fake.sendSlashCommand({ text: 'start demo --to 1.32', userId: 'U0REQ', channelId: CHANNEL });
  expect(started.status).toBe(200);
  confirmation = (await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 10_000 })).text;
  ({ gates, summary } = await answerGatesUntilSummary(stack.fake, {
    channel: CHANNEL,
    approver: 'U0APP',
    // Most of the wall time is the thread itself: about one Slack post per second per channel, ~60 posts.
    timeoutMs: 120_000,
    decide: () => ({ action: 'continue' }),
  }));
  // The timeline file is the last post; the status card's final edit may come just before or after it.
  await stack.fake.waitFor((f) => f.files().some((file) => file.text.length > 0) && /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? ''), { timeoutMs: 15_000 });
}, 150_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('demo 1.30 → 1.32 from Slack, hop after hop', () => {
  it('accepts the two-minor target and says it runs in two hops', () => {
    expect(confirmation).toMatch(/^Started upgrading demo from 1\.30 to 1\.32 in 2 hops \(1\.30 → 1\.31 → 1\.32\), each with its own approval gate/);
  });

  it('opens the gates the plan announces, hop by hop in order — the control plane, then the node group — and the approver approves each', () => {
    expect(gates.map((g) => g.gateId)).toEqual(['h1-control-plane', 'h1-ask-nodegroup-demo-ng', 'h2-control-plane', 'h2-ask-nodegroup-demo-ng']);
    expect(gates[0].shown).toMatch(/control plane of demo to 1\.31/);
    expect(gates[1].shown).toMatch(/Roll node group demo-ng \(\d+ nodes?\) to 1\.31\?/);
    expect(gates[2].shown).toMatch(/control plane of demo to 1\.32/);
    expect(gates[3].shown).toMatch(/Roll node group demo-ng \(\d+ nodes?\) to 1\.32\?/);
    for (const gate of gates) {
      const card = stack.fake.message(CHANNEL, gate.message.ts)!;
      expect(blocksJson(card)).not.toContain('"gate:continue"');
      expect(blocksJson(card)).toMatch(/Approved by <@U0APP>/);
    }
  });

  it('ends with the control plane at 1.32 after exactly two accepted UpdateClusterVersion calls, 1.31 then 1.32', async () => {
    const cluster = (await stack.eksClient().send(new DescribeClusterCommand({ name: 'demo' }))).cluster!;
    expect(cluster.version).toBe('1.32');
    expect(cluster.status).toBe('ACTIVE');
    const updates = await stack.acceptedCalls('UpdateClusterVersion');
    expect(updates.map((call) => call.target)).toEqual(['1.31', '1.32']);
  });

  it('moves the node group and every one of its nodes to 1.32, one node-group update per hop', async () => {
    const ng = (await stack.eksClient().send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'demo-ng' }))).nodegroup!;
    expect(ng.version).toBe('1.32');
    const core = stack.kubeConfig('demo').makeApiClient(k8s.CoreV1Api);
    const nodes = (await core.listNode({ labelSelector: 'eks.amazonaws.com/nodegroup=demo-ng' })).items;
    expect(nodes.length).toBe(2);
    expect(nodes.map((n) => n.status?.nodeInfo?.kubeletVersion).every((v) => v?.startsWith('v1.32.'))).toBe(true);
    expect(await stack.acceptedCalls('UpdateNodegroupVersion')).toHaveLength(2);
  });

  it('posts a summary that lists the steps of both hops and the outcome 1.30 → 1.32', () => {
    const text = summary.text;
    expect(text).toMatch(/^Upgrade 1\.30 → 1\.32: ✅ Succeeded\./);
    expect(blocksJson(summary)).toContain('demo is upgraded from 1.30 to 1.32.');
    for (const hop of [{ n: 1, to: '1.31' }, { n: 2, to: '1.32' }]) {
      for (const title of [`preflight for ${hop.to}`, `control plane to ${hop.to}`, `add-ons for ${hop.to}`, `managed node groups to ${hop.to}`, `verify ${hop.to}`]) {
        expect(text).toContain(`hop ${hop.n}: ${title}`);
      }
    }
    expect(text).toMatch(/demo-ng 1\.30 → 1\.31 \(in place\)/);
    expect(text).toMatch(/demo-ng 1\.31 → 1\.32 \(in place\)/);
    const timeline = stack.fake.files()[0]?.text ?? '';
    expect(timeline).toContain('hop 1: control plane to 1.31');
    expect(timeline).toContain('hop 2: control plane to 1.32');
  });
});
