import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { PolicyDocument, PolicyStatement } from '@eks-upgrade-bot/sim';
import { DEPLOY_IAM_POLICY, DEPLOY_RBAC, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, blocksJson, repliesOf } from '../support/e2e-thread.js';

/**
 * The first-day failures, as the operator meets them: the simulator enforces a copy of deploy/'s IAM policy or
 * ClusterRole with one grant removed, and the bot says in Slack which permission is missing — before anything
 * starts for Kubernetes RBAC (ACC001 in the plan), and on the card of the step AWS refused for IAM.
 */
const CHANNEL = 'C0OPS';
let stack: E2eStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

function withoutAction(action: string): PolicyDocument {
  const statements = DEPLOY_IAM_POLICY.Statement as PolicyStatement[];
  return { ...DEPLOY_IAM_POLICY, Statement: statements.map((s) => ({ ...s, Action: (s.Action as string[]).filter((a) => a !== action) })).filter((s) => (s.Action as string[]).length > 0) };
}

function withoutRule(verb: string, resource: string): KubeObject[] {
  return DEPLOY_RBAC.map((o) =>
    o.kind !== 'ClusterRole'
      ? o
      : { ...o, rules: (o.rules as Array<{ verbs: string[]; resources: string[] }>).map((r) => (r.verbs.includes(verb) ? { ...r, resources: r.resources.filter((x) => x !== resource) } : r)).filter((r) => r.resources.length > 0) },
  );
}

describe('a permission missing on day one', () => {
  it('plan names the Kubernetes permission the ClusterRole lacks (ACC001) and the file that grants it', async () => {
    stack = await startE2eStack({
      scenario: 'karpenter-lab',
      clusters: [{ name: 'eksworkshop-eksctl', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] }],
      access: { rbac: withoutRule('patch', 'nodepools') },
    });
    const before = stack.fake.ephemerals('U0REQ').length;
    await stack.fake.sendSlashCommand({ text: 'plan eksworkshop-eksctl --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const reply = await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[before], { timeoutMs: 20_000 });
    const shown = `${reply.text}\n${blocksJson(reply)}`;
    expect(shown).toContain('ACC001');
    expect(shown).toContain('may not patch nodepools.karpenter.sh (the upgrade disruption budget)');
    expect(shown).toContain('deploy/rbac/cluster-role.yaml');
  });

  it('an upgrade whose UpdateClusterVersion IAM refuses stops with a card naming eks:UpdateClusterVersion, and changes nothing', async () => {
    stack = await startE2eStack({
      scenario: 'demo',
      clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true }],
      access: { iamPolicy: withoutAction('eks:UpdateClusterVersion') },
    });
    await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const { summary } = await answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 40_000, decide: () => ({ action: 'continue' }) });
    expect(summary.text).toMatch(/Failed/);
    const said = repliesOf(stack.fake, CHANNEL).map((r) => `${r.text}\n${blocksJson(r)}`).join('\n');
    expect(said).toContain('is not authorized to perform: eks:UpdateClusterVersion');
    expect(said).toContain("grant the bot's IAM role the eks:UpdateClusterVersion permission (deploy/iam/permissions-policy.json lists every action the bot uses)");
    expect(stack.sim.world.cluster('demo')?.version).toBe('1.30');
    expect(stack.sim.world.rejectedCalls.some((c) => c.operation === 'UpdateClusterVersion' && c.error === 'AccessDeniedException')).toBe(true);
  });
});
