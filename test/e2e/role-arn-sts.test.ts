import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { DEPLOY_RBAC, startE2eStack, type E2eStack } from '../support/e2e-stack.js';

/**
 * `roleArn` in clusters.yaml, end to end through STS on the simulator: the bot assumes the role (AssumeRole on top of
 * its own credentials, or AssumeRoleWithWebIdentity from a projected token as under IRSA) and reaches EKS and the
 * cluster's Kubernetes API as that role. The proof is RBAC: the ClusterRole is bound to the assumed role's session
 * user only (no access-entry group), so the nodes in the status card can only have been read as the role.
 */
const CHANNEL = 'C0OPS';
const ROLE = 'arn:aws:iam::111122223333:role/eks-upgrade-bot-demo';
const SESSION_USER = 'arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot-demo/eks-upgrade-bot';
const boundToSession: KubeObject[] = DEPLOY_RBAC.map((o) =>
  o.kind === 'ClusterRoleBinding' ? { ...o, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: SESSION_USER }] } : o,
);
let stack: E2eStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function status(s: E2eStack): Promise<string> {
  const before = s.fake.ephemerals('U0REQ').length;
  await s.fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: CHANNEL });
  return (await s.fake.waitFor((f) => f.ephemerals('U0REQ')[before], { timeoutMs: 20_000 })).text;
}

const cluster = (roleArn: string) => ({ name: 'demo', region: 'us-west-2', roleArn, channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] });

describe('roleArn through STS', () => {
  it('assumes the role with AssumeRole and reads EKS and Kubernetes as the role', async () => {
    stack = await startE2eStack({ scenario: 'demo', clusters: [cluster(ROLE)], access: { rbac: boundToSession, accessEntryGroups: [] } });
    const text = await status(stack);
    expect(text).toMatch(/\*demo\*: control plane 1\.30/);
    expect(text).toMatch(/managed node group `demo-ng`: 2 nodes/);
    expect((await stack.acceptedCalls('AssumeRole')).map((c) => c.target)).toEqual([ROLE]); // one session, shared by EKS and the token
    expect(stack.deniedCalls()).toEqual([]);
  });

  it('says which sts:AssumeRole the policy refuses when the role is not one the bot may assume', async () => {
    const other = 'arn:aws:iam::111122223333:role/someone-else';
    stack = await startE2eStack({ scenario: 'demo', clusters: [cluster(other)] });
    const text = await status(stack);
    expect(text).toContain(`is not authorized to perform: sts:AssumeRole on resource: ${other}`);
  });

  it('assumes the role from a web identity token file, as under IRSA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'irsa-'));
    const tokenFile = join(dir, 'token');
    const claims = { iss: 'https://oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE', sub: 'system:serviceaccount:eks-upgrade-bot:eks-upgrade-bot', aud: 'sts.amazonaws.com' };
    writeFileSync(tokenFile, ['{"alg":"RS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.'));
    stack = await startE2eStack({ scenario: 'demo', clusters: [cluster(ROLE)], access: { rbac: boundToSession, accessEntryGroups: [] }, aws: { webIdentityTokenFile: tokenFile } });
    expect(await status(stack)).toMatch(/managed node group `demo-ng`: 2 nodes/);
    expect((await stack.acceptedCalls('AssumeRoleWithWebIdentity')).map((c) => c.target)).toEqual([ROLE]);
    expect(await stack.acceptedCalls('AssumeRole')).toEqual([]);
  });
});
