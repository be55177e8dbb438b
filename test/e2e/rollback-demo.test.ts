import { DescribeAddonCommand, DescribeClusterCommand, DescribeNodegroupCommand, DescribeUpdateCommand, ListUpdatesCommand } from '@aws-sdk/client-eks';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGate, blocksJson, openGateOf, readStepMessage, type OpenGate } from '../support/e2e-thread.js';

/**
 * Issue 10 end to end through Slack on the simulator: upgrade demo 1.30 → 1.31, press "Roll back to 1.30" on the
 * summary card, approve; the node group goes back first, then the add-ons 1.30 does not support, then — after the
 * gate — the control plane with one VersionRollback. Seven simulated days later the same button answers that it is
 * out of date, with the date the window closed. The bot runs on the simulator's clock.
 */
const CHANNEL = 'C0DEMO';
const DAY = 24 * 3600_000;
let stack: E2eStack;
let upgradeSummary: FakeMessage;
let rollbackSummary: FakeMessage;
let confirmation: string;
const rollbackGates: OpenGate[] = [];

/** The parent cards of the channel ("EKS upgrade · …", "EKS rollback · …"), oldest first. */
function jobCards(fake: FakeSlack, kind: 'upgrade' | 'rollback'): FakeMessage[] {
  return fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage' && new RegExp(`EKS ${kind} · `).test(m.versions[0]?.text ?? m.text));
}

async function answerUntilSummary(kind: 'upgrade' | 'rollback', heading: RegExp, answered: OpenGate[], timeoutMs: number): Promise<FakeMessage> {
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const next = await stack.fake.waitFor(
      (f) => {
        const replies = jobCards(f, kind)[0]?.replies ?? [];
        const gate = replies.map(openGateOf).find((g) => g && !seen.has(`${g.gateId}:${g.revision}`));
        if (gate) return { gate };
        const summary = replies.find((reply) => heading.test(reply.text));
        return summary && { summary };
      },
      { timeoutMs: Math.max(1, deadline - Date.now()) },
    );
    if ('summary' in next && next.summary) return next.summary;
    const gate = (next as { gate: OpenGate }).gate;
    seen.add(`${gate.gateId}:${gate.revision}`);
    answered.push(gate);
    await answerGate(stack.fake, CHANNEL, gate, { action: 'continue' }, 'U0APP');
  }
}

/**
 * The bot reads a cluster for a command within 60 simulated seconds: at 600× that is 0.1 s of real time, so the
 * simulator slows to 5× while a command (or the button, which runs one) reads, and runs at 600× while jobs run.
 */
async function speed(value: number): Promise<void> {
  const res = await fetch(`${stack.sim.url}/_sim/speed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ speed: value }) });
  expect(res.ok).toBe(true);
}

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'demo',
    speed: 5,
    // On the simulator's clock: 60 simulated seconds between DescribeUpdate polls is 0.1 s at 600×.
    pollSeconds: 60,
    botClock: 'sim',
    clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
  });
  await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 30_000 });
  await speed(600);
  upgradeSummary = await answerUntilSummary('upgrade', /^Upgrade 1\.31|^Upgrade 1\.30 → 1\.31: \S* ?Succeeded/u, [], 90_000);

  await speed(5);
  const click = await stack.fake.clickButton({ userId: 'U0REQ', channelId: CHANNEL, messageTs: upgradeSummary.ts, actionId: 'rollback:start' });
  expect(click.status).toBe(200);
  confirmation = (await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => /rolling back|rolled back|did not complete/i.test(e.text)), { timeoutMs: 30_000 })).text;
  await speed(600);
  rollbackSummary = await answerUntilSummary('rollback', /^Rollback 1\.31 → 1\.30: /u, rollbackGates, 90_000);
}, 200_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('demo 1.30 → 1.31, then Roll back to 1.30 from the summary card', () => {
  it('offers "Roll back to 1.30" on the upgrade summary with the date it works until', () => {
    const blocks = blocksJson(upgradeSummary);
    expect(blocks).toContain('"rollback:start"');
    expect(blocks).toContain('Roll back to 1.30');
    expect(blocks).toMatch(/Roll back works until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });

  it('starts the rollback for the requester who clicked, and asks the approver once, before the control plane', () => {
    expect(confirmation).toMatch(/^Started rolling back demo from 1\.31 to 1\.30/);
    expect(rollbackGates.map((gate) => gate.gateId)).toEqual(['h1-control-plane']);
    expect(blocksJson(rollbackGates[0].message)).toMatch(/Roll the control plane of demo back to 1\.30\?/);
    expect(rollbackSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect(blocksJson(rollbackSummary)).toContain('demo is rolled back from 1.31 to 1.30.');
    expect(blocksJson(rollbackSummary)).not.toContain('"rollback:start"');
  });

  it('brings the control plane, the node group and its nodes, and kube-proxy back to 1.30 with exactly one VersionRollback', async () => {
    const eks = stack.eksClient();
    const cluster = (await eks.send(new DescribeClusterCommand({ name: 'demo' }))).cluster!;
    expect(cluster.version).toBe('1.30');
    expect(cluster.status).toBe('ACTIVE');
    const ng = (await eks.send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'demo-ng' }))).nodegroup!;
    expect(ng.version).toBe('1.30');
    const core = stack.kubeConfig('demo').makeApiClient(k8s.CoreV1Api);
    const nodes = (await core.listNode({ labelSelector: 'eks.amazonaws.com/nodegroup=demo-ng' })).items;
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((node) => node.status?.nodeInfo?.kubeletVersion?.startsWith('v1.30.'))).toBe(true);
    const kubeProxy = (await eks.send(new DescribeAddonCommand({ clusterName: 'demo', addonName: 'kube-proxy' }))).addon!;
    expect(kubeProxy.addonVersion).toMatch(/^v1\.30\./);

    const ids = (await eks.send(new ListUpdatesCommand({ name: 'demo', maxResults: 100 }))).updateIds ?? [];
    const updates = await Promise.all(ids.map(async (id) => (await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: id }))).update!));
    const rollbacks = updates.filter((update) => update.type === 'VersionRollback');
    expect(rollbacks.map((update) => update.status)).toEqual(['Successful']);
    expect((await stack.acceptedCalls('UpdateClusterVersion')).map((call) => call.target)).toEqual(['1.31', '1.30']);
    expect(stack.deniedCalls()).toEqual([]);
  });

  it('reads as an incident timeline: node group first, then add-ons, then the control plane', () => {
    const card = jobCards(stack.fake, 'rollback')[0];
    // One message per step, in the order the steps ran, each ending ✅ with its duration.
    const steps = card.replies.map((reply) => readStepMessage(reply)).filter((view) => view !== undefined);
    expect(steps.every((step) => step.state === 'finished' && step.duration)).toBe(true);
    const order = ['rollback preflight', 'managed node groups back to 1.30', 'add-ons', 'approval: roll the control plane', 'control plane back to 1.30', 'verify 1.30'];
    const positions = order.map((title) => steps.findIndex((step) => step.title.includes(title)));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('answers a click on the old button after 7 simulated days with the date the window closed, and starts nothing', async () => {
    const jump = await fetch(`${stack.sim.url}/_sim/jump`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 7 * DAY + 60_000 }) });
    expect(jump.ok).toBe(true);
    const before = (await stack.acceptedCalls()).length;
    const seen = stack.fake.ephemerals('U0REQ').length;
    await stack.fake.clickButton({ userId: 'U0REQ', channelId: CHANNEL, messageTs: upgradeSummary.ts, actionId: 'rollback:start' });
    const answer = await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[seen], { timeoutMs: 10_000 });
    expect(answer.text).toMatch(/out of date: EKS's 7-day window to roll demo back to 1\.30 closed on \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expect((await stack.acceptedCalls()).length).toBe(before);
    expect(jobCards(stack.fake, 'rollback')).toHaveLength(1);
    // …and the card's button has turned into a plain line saying until when it worked.
    const card = await stack.fake.waitFor((f) => {
      const current = f.message(CHANNEL, upgradeSummary.ts);
      return current && !blocksJson(current).includes('"rollback:start"') && current;
    }, { timeoutMs: 10_000 });
    expect(blocksJson(card)).toMatch(/Rolling demo back to 1\.30 was possible until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });
});
