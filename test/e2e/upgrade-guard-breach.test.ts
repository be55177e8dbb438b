import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import * as k8s from '@kubernetes/client-node';
import type { E2eStack } from '../support/e2e-stack.js';
import { answerGate, blocksJson, openGateOf, openGates, repliesOf, statusCard, summaryReply, type OpenGate } from '../support/e2e-thread.js';
import { answerRollbackUntilSummary, clickRollBack, GUARD_CHANNEL, GUARD_CLUSTER, rollbackCard, startGuardBreach, type GuardBreachStage } from '../support/guard-breach-stack.js';
import { until } from '../support/until.js';

/**
 * Issue 29 end to end, through Slack: the bot replaces a self-managed group node by node; a real Prometheus scrapes
 * the simulator's kube-state-metrics; a guard watches the trainer Deployment's availability. The trainer breaks on
 * the new kubelet version, the guard breaches, and the bot stops disrupting: the simulator counts no termination
 * after the breach card was posted, and the card in the thread says which guard, against what, and who may resume.
 * Then a requester clicks the card's Roll back: the upgrade ends Aborted where the guard held it, a rollback job
 * takes the cluster back to 1.30, and the guard recovers (the trainer fails only on 1.31).
 */
const CLUSTER = GUARD_CLUSTER;
const CHANNEL = GUARD_CHANNEL;
const NODES = 5;

let stage: GuardBreachStage;
let stack: E2eStack;
let breach: OpenGate;
let terminatedAtBreach: number;

const terminations = async () => (await stack.acceptedCalls('TerminateInstanceInAutoScalingGroup')).length;

beforeAll(async () => {
  stage = await startGuardBreach({ nodes: NODES });
  ({ stack, breach } = stage);
  terminatedAtBreach = await terminations();
}, 300_000);

afterAll(async () => {
  await stage?.close();
});

describe('a Prometheus guard on a workload that breaks on the new version', () => {
  it('posts the breach card: the guard, its query, the value against the threshold, the step, the approvers and the buttons', () => {
    const card = blocksJson(breach.message);
    expect(breach.message.text).toContain('Guard "trainer available" stopped the upgrade of batch');
    expect(card).toMatch(/breached since \d\d:\d\d:\d\d UTC, 0\.\d+ \(breached when &lt; 1\)/);
    expect(card).toContain('watches min(kube_deployment_status_replicas_available');
    expect(card).toContain('The bot stopped at step \\"self-managed node groups to 1.31\\"');
    expect(card).toContain('<@U0APP>');
    expect(breach.labels).toEqual(['Resume', 'Roll back to 1.30', 'Force', 'Abort']);
    expect(breach.actions).toEqual(['gate:continue', 'guard:rollback', 'gate:force', 'gate:abort']);
    expect(card).toContain('Roll back to 1.30 (requesters too, until');
  });

  it('stops replacing nodes: no termination after the breach, while the guard is still evaluated', async () => {
    expect(terminatedAtBreach).toBeLessThan(NODES);
    await until(() => /Paused/.test(statusCard(stack.fake, CHANNEL)?.text ?? ''), 'the status card to say Paused');
    // Continue is refused while the guard is breached: the refusal is a fresh evaluation, after the card.
    await answerGate(stack.fake, CHANNEL, breach, { action: 'continue' }, 'U0APP');
    await until(() => repliesOf(stack.fake, CHANNEL).some((reply) => reply.text.includes('Resume by <@U0APP> refused: guard "trainer available" still halts')), 'the refusal in the thread', 60_000);
    await until(() => openGates(stack.fake, CHANNEL).find((gate) => gate.gateId === breach.gateId && gate.revision === breach.revision + 1), 'the breach card asked again', 60_000);
    expect(await terminations()).toBe(terminatedAtBreach);
    expect(stack.deniedCalls()).toEqual([]);
  });
});

describe('Roll back on the breach card, clicked by a requester', () => {
  let held: OpenGate;
  let confirmation: string;

  it('aborts the held upgrade at its safe point and starts the rollback, and says both in the thread', async () => {
    held = (await until(() => openGates(stack.fake, CHANNEL).find((gate) => gate.gateId === breach.gateId), 'the open breach card', 60_000))!;
    expect(held.labels).toContain('Roll back to 1.30');
    confirmation = await clickRollBack(stack, held, 'U0REQ');
    expect(confirmation).toMatch(/^Started rolling back batch from 1\.31 to 1\.30 \(job `[^`]+`\)/);

    // The upgrade's thread: the card answered with the abort, the job's summary Aborted, and the rollback said.
    const card = await until(() => {
      const current = stack.fake.message(CHANNEL, held.message.ts);
      return current && !openGateOf(current) ? current : undefined;
    }, 'the breach card answered', 60_000);
    expect(blocksJson(card!)).toMatch(/⛔ Aborted by <@U0REQ> at \d\d:\d\d:\d\d UTC — reason: Roll back to 1\.30 chosen on the breach card/);
    const summary = await until(() => summaryReply(stack.fake, CHANNEL), 'the upgrade summary', 60_000);
    expect(summary!.text).toMatch(/^Upgrade 1\.30 → 1\.31: \S* ?Aborted/u);
    const note = await until(() => repliesOf(stack.fake, CHANNEL).find((reply) => reply.text.includes('chose Roll back on the breach card')), 'the rollback in the upgrade thread', 60_000);
    expect(note!.text).toMatch(/^⏪ <@U0REQ> chose Roll back on the breach card: the upgrade was aborted where the guard held it\. Started rolling back batch from 1\.31 to 1\.30/);
    // Aborted where it was held: the bot terminated no node of the upgrade after the breach.
    expect(await terminations()).toBe(terminatedAtBreach);
  }, 200_000);

  it('brings batch back to 1.30, and the guard recovers once no trainer pod runs on a 1.31 node', async () => {
    const { summary: ended, gates } = await answerRollbackUntilSummary(stack);
    expect(ended!.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect(gates).toEqual(['h1-control-plane']);

    const cluster = (await stack.eksClient().send(new DescribeClusterCommand({ name: CLUSTER }))).cluster!;
    expect(cluster.version).toBe('1.30');
    const nodes = (await stack.kubeConfig(CLUSTER).makeApiClient(k8s.CoreV1Api).listNode()).items;
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((node) => node.status?.nodeInfo?.kubeletVersion?.startsWith('v1.30.'))).toBe(true);
    expect((await stack.acceptedCalls('UpdateClusterVersion')).map((call) => call.target)).toEqual(['1.31', '1.30']);

    // The guard recovers: the rollback's thread says so (for information), and Prometheus reads the trainer whole.
    await until(async () => (await stage.availability()) === 1, 'the trainer available again in Prometheus', 120_000);
    await until(() => rollbackCard(stack)?.replies.find((reply) => /Guard "trainer available" recovered at \d\d:\d\d:\d\d UTC/.test(reply.text)), 'the recovery in the rollback thread', 120_000);
    expect(stack.deniedCalls()).toEqual([]);
  }, 600_000);
});
