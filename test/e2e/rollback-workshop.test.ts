import { DescribeNodegroupCommand, ListNodegroupsCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, answerRollbackGates, type GateAnswer, type OpenGate } from '../support/e2e-thread.js';

/**
 * Issue 10 on the workshop (blue/green group, custom-AMI group, self-managed group, Karpenter, Fargate): upgrade
 * 1.25 → 1.26 from Slack, then `rollback`. Node groups go back first with their clusters.yaml strategy (the
 * blue/green group through a 1.25 clone), then the control plane, then the Fargate workloads.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';
const FORCE_REASON = 'workshop drill: findings reviewed by the platform team';

let stack: E2eStack;
let rollbackSummary: FakeMessage | undefined;
let refusal: string | undefined;
const rollbackGates: OpenGate[] = [];

function rollbackCard(fake: FakeSlack): FakeMessage | undefined {
  return fake.messages(CHANNEL).find((m) => m.source === 'chat.postMessage' && /EKS rollback · /.test(m.versions[0]?.text ?? m.text));
}

const decide = (gate: OpenGate): GateAnswer => {
  if (gate.actions.includes('gate:remedy')) return { action: 'remedy' };
  if (!gate.actions.includes('gate:continue') && gate.actions.includes('gate:force')) return { action: 'force', reason: FORCE_REASON };
  return { action: 'continue' };
};

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'workshop',
    speed: 600,
    clusters: [
      {
        name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true,
        karpenter: { upgradeBudget: '1' },
        nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, // The team's own 1.25 build (what the group ran before the upgrade) is named for the way back.
        'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id', ami: { '1.25': 'ami-0078a0f78fafda978' } }, '*': { strategy: 'in-place' } },
      },
    ],
  });
  await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.26`, userId: 'U0REQ', channelId: CHANNEL });
  await answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 100_000, decide });

  await stack.fake.sendSlashCommand({ text: `rollback ${CLUSTER}`, userId: 'U0REQ', channelId: CHANNEL });
  const answered = await answerRollbackGates(stack.fake, { channel: CHANNEL, requester: 'U0REQ', approver: 'U0APP', summary: /^Rollback 1\.26 → 1\.25: /u, timeoutMs: 100_000, decide });
  refusal = answered.refused;
  rollbackSummary = answered.summary;
  rollbackGates.push(...answered.gates);
}, 220_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('workshop 1.26 → 1.25 rollback', () => {
  it('is accepted and succeeds with the control plane back at 1.25', () => {
    expect(refusal).toBeUndefined();
    expect(rollbackSummary?.text).toMatch(/^Rollback 1\.26 → 1\.25: \S* ?Succeeded/u);
    expect(stack.sim.world.cluster(CLUSTER)?.version).toBe('1.25');
  });

  it('brings every managed node group back to 1.25 (the blue/green one through a 1.25 clone)', async () => {
    const eks = stack.eksClient();
    const names = (await eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER, maxResults: 100 }))).nodegroups ?? [];
    const groups = await Promise.all(names.map(async (name) => (await eks.send(new DescribeNodegroupCommand({ clusterName: CLUSTER, nodegroupName: name }))).nodegroup!));
    expect(groups.filter((ng) => !ng.nodegroupName?.startsWith('custom')).map((ng) => `${ng.nodegroupName} ${ng.version}`).filter((line) => !line.endsWith(' 1.25'))).toEqual([]);
    expect(names.some((name) => name.endsWith('-1-25'))).toBe(true);
  });

  it('restarts the Fargate workload after the control plane, and rolls the self-managed group back', () => {
    const text = JSON.stringify(rollbackCard(stack.fake)?.replies.map((reply) => reply.text) ?? []);
    expect(text).toMatch(/Fargate workloads restarted 1\/1 \(deployment assets\/assets 1\/1 pod\(s\) on 1\.25\)/);
    expect(text).toMatch(/default-selfmng-\w+: 2\/2 nodes at 1\.25/);
    // The Fargate node still runs 1.26 until the control plane is back, so EKS's kubelet insight is forced at the gate.
    // (The blue/green group's own delete-blue gate comes first, as in an upgrade.)
    expect(rollbackGates.map((gate) => gate.gateId)).toEqual(['h1-bg-blue-mng-20250325023020754500000029-1-26', 'h1-control-plane']);
    expect(rollbackGates[1].actions).toEqual(['gate:force', 'gate:abort']);
  });

  it('runs under the shipped IAM policy and RBAC with nothing refused', () => {
    expect(stack.deniedCalls()).toEqual([]);
  });
});
