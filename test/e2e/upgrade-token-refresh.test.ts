import { DescribeNodegroupCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { createEksTokenSource } from '../../src/aws/eks-token.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { E2E_CREDENTIALS, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary } from '../support/e2e-thread.js';

/**
 * An upgrade that outlives its first EKS token (issue 24). The simulator accepts a token for 3 s of wall-clock time
 * here instead of EKS's 15 minutes (the named `eksTokenLifetimeMs` option; every other rule stays on) and the bot
 * reuses one for 1.5 s instead of 14 minutes: the upgrade, its drains and its watches take many lifetimes and still
 * finish, while a token signed when it started is refused by the end.
 */
const CHANNEL = 'C0DEMO';
const LIFETIME_MS = 3000;
let stack: E2eStack;
let summary: FakeMessage;
let firstToken: string;
let startedAt: number;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'demo',
    // Slow enough that the upgrade takes several token lifetimes of wall-clock time now that its thread posts are
    // paced at E2E_THREAD_INTERVAL_MS rather than Slack's second: most of its real time is the simulated world's.
    speed: 100,
    eksTokens: { lifetimeMs: LIFETIME_MS, reuseMs: 1500 },
    clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
  });
  startedAt = Date.now();
  firstToken = await createEksTokenSource({ clusterName: 'demo', region: 'us-west-2', credentials: async () => E2E_CREDENTIALS }).token();
  await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 15_000 });
  ({ summary } = await answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 120_000, decide: () => ({ action: 'continue' }) }));
}, 150_000);

afterAll(async () => {
  await stack?.close();
});

describe('an upgrade longer than the EKS token lifetime', () => {
  it('succeeds, node group and nodes included, though it ran for several token lifetimes', async () => {
    expect(Date.now() - startedAt).toBeGreaterThan(2 * LIFETIME_MS);
    expect(summary.text).toMatch(/^Upgrade 1\.30 → 1\.31: \S* ?Succeeded/u);
    const ng = (await stack.eksClient().send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'demo-ng' }))).nodegroup!;
    expect(ng.version).toBe('1.31');
  });

  it('the simulator refuses by then the token signed when the upgrade started', async () => {
    const eks = createEksPortFactory({ endpoint: stack.sim.url, credentials: E2E_CREDENTIALS });
    const kube = await createKubePortFactory({ eks, credentials: E2E_CREDENTIALS, tokenSourceFor: () => ({ token: async () => firstToken }) })({ name: 'demo', region: 'us-west-2' });
    await expect(kube.list('nodes')).rejects.toMatchObject({ code: 401 });
  });
});
