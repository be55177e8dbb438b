import { DescribeClusterCommand, DescribeUpdateCommand, ListUpdatesCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';
import { answerGatesUntilSummary, answerRollbackGates } from '../support/e2e-thread.js';

/**
 * Issue 10 on an EKS Auto Mode cluster (scenario automode, cluster `auto`): status shows Auto Mode nodes as their own
 * compute kind; the upgrade 1.30 → 1.31 moves the control plane and EKS replaces the nodes itself; a rollback
 * then starts (EKS rolls the Auto Mode nodes back before the control plane) and an Abort during that node phase
 * calls CancelUpdate once: the update ends Cancelled, the control plane stays at 1.31, the job says aborted.
 */
const CLUSTER = 'auto';
const CHANNEL = 'C0OPS';

let stack: E2eStack;
let statusText: string;
let rollbackSummary: FakeMessage;
let abortAnswer: string;
let upgradeSummary: FakeMessage;

function rollbackCard(fake: FakeSlack): FakeMessage | undefined {
  return fake.messages(CHANNEL).find((m) => m.source === 'chat.postMessage' && /EKS rollback · /.test(m.versions[0]?.text ?? m.text));
}

const autoNodes = () => stack.sim.world.kube(CLUSTER)!.list('nodes').filter((n) => n.metadata.labels?.['eks.amazonaws.com/compute-type'] === 'auto');

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'automode',
    speed: 300,
    clusters: [{ name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
  });
  await stack.fake.sendSlashCommand({ text: `status ${CLUSTER}`, userId: 'U0REQ', channelId: CHANNEL });
  const status = await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 30_000 });
  statusText = JSON.stringify(status.blocks ?? []) + status.text;

  await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.31`, userId: 'U0REQ', channelId: CHANNEL });
  ({ summary: upgradeSummary } = await answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 60_000, decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'auto mode drill' }) }));
  // EKS replaces the Auto Mode nodes at 1.31 by itself.
  await until(() => autoNodes().length > 0 && autoNodes().every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.')), 'Auto Mode nodes at 1.31', 60_000);

  await stack.fake.sendSlashCommand({ text: `rollback ${CLUSTER}`, userId: 'U0REQ', channelId: CHANNEL });
  const { refused } = await answerRollbackGates(stack.fake, { channel: CHANNEL, requester: 'U0REQ', approver: 'U0APP', summary: /^Rollback 1\.31 → 1\.30: /u, timeoutMs: 60_000, decide: () => ({ action: 'continue' }), stopAfter: (gate) => gate.gateId === 'h1-control-plane' });
  if (refused) throw new Error(`rollback refused: ${refused}`);
  // The node phase: the rollback InProgress while the cluster stays ACTIVE.
  await until(() => stack.sim.world.calls.some((call) => call.operation === 'UpdateClusterVersion' && call.target === '1.30'), 'the rollback issued', 30_000);
  await stack.fake.sendSlashCommand({ text: `abort ${CLUSTER}`, userId: 'U0APP', channelId: CHANNEL });
  abortAnswer = (await stack.fake.waitFor((f) => f.ephemerals('U0APP').find((e) => /abort/i.test(e.text)), { timeoutMs: 30_000 })).text;
  rollbackSummary = await stack.fake.waitFor((f) => rollbackCard(f)?.replies.find((reply) => /^Rollback 1\.31 → 1\.30: /u.test(reply.text)), { timeoutMs: 60_000 });
}, 200_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('Auto Mode: status, upgrade, and an aborted rollback', () => {
  it('shows Auto Mode nodes as their own compute kind', () => {
    expect(statusText).toContain('Auto Mode NodePool');
  });

  it('has the upgrade follow EKS replacing the Auto Mode nodes before it verifies', () => {
    expect(upgradeSummary.text).toMatch(/Succeeded/);
    expect(JSON.stringify(upgradeSummary.blocks)).toMatch(/all 3 Auto Mode node\(s\) at 1\.31 \(replaced by EKS\)/);
  });

  it('calls CancelUpdate once during the node phase; the rollback ends Cancelled and the control plane stays at 1.31', async () => {
    expect(abortAnswer).toBeTruthy();
    expect(rollbackSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Aborted/u);
    expect((await stack.acceptedCalls('CancelUpdate'))).toHaveLength(1);
    const eks = stack.eksClient();
    const ids = (await eks.send(new ListUpdatesCommand({ name: CLUSTER, maxResults: 100 }))).updateIds ?? [];
    const updates = await Promise.all(ids.map(async (id) => (await eks.send(new DescribeUpdateCommand({ name: CLUSTER, updateId: id }))).update!));
    expect(updates.filter((u) => u.type === 'VersionRollback').map((u) => u.status)).toEqual(['Cancelled']);
    expect((await eks.send(new DescribeClusterCommand({ name: CLUSTER }))).cluster?.version).toBe('1.31');
    const text = JSON.stringify(rollbackCard(stack.fake)?.replies.map((r) => r.text));
    expect(text).toMatch(/CancelUpdate issued for the rollback/);
    expect(stack.deniedCalls()).toEqual([]);
  });
});
