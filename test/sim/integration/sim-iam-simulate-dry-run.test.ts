import { describe, expect, it } from 'vitest';
import { loadIamPolicyFile, type SimServer } from '@eks-upgrade-bot/sim';
import { policyWithout } from '../../support/policy-without.js';
import { useSim } from '@eks-upgrade-bot/sim/kit';
import { aws } from '../../support/aws-cli.js';

/**
 * What `doctor` asks AWS without changing anything, through the real `aws` CLI (botocore parses the XML): IAM's
 * SimulatePrincipalPolicy answered from the policy the simulator enforces, and EC2's DryRun (DryRunOperation when
 * allowed, UnauthorizedOperation when not).
 */
const sim = useSim();
const POLICY = loadIamPolicyFile('deploy/iam/permissions-policy.json');
const ROLE = 'arn:aws:iam::111122223333:role/eks-upgrade-bot';

describe('iam:SimulatePrincipalPolicy on the simulator', () => {
  it('answers each action from the enforced policy: allowed, or implicitDeny for the one taken out', async () => {
    const s = await sim('demo', { iamPolicy: policyWithout(POLICY, 'eks:UpdateClusterVersion') });
    const simulated = await aws(s, 'iam', 'simulate-principal-policy', '--policy-source-arn', ROLE, '--action-names', 'eks:DescribeCluster', 'eks:UpdateClusterVersion', '--resource-arns', 'arn:aws:eks:us-west-2:111122223333:cluster/demo');
    expect(simulated.stderr).toBe('');
    const decisions = Object.fromEntries(simulated.json.EvaluationResults.map((r: any) => [r.EvalActionName, r.EvalDecision]));
    expect(decisions).toEqual({ 'eks:DescribeCluster': 'allowed', 'eks:UpdateClusterVersion': 'implicitDeny' });

    const passRole = await aws(s, 'iam', 'simulate-principal-policy', '--policy-source-arn', ROLE, '--action-names', 'iam:PassRole', '--resource-arns', 'arn:aws:iam::111122223333:role/node',
      '--context-entries', 'ContextKeyName=iam:PassedToService,ContextKeyValues=eks.amazonaws.com,ContextKeyType=string');
    expect(passRole.json.EvaluationResults[0].EvalDecision).toBe('allowed');

    const elsewhere = await aws(s, 'iam', 'simulate-principal-policy', '--policy-source-arn', 'arn:aws:iam::999999999999:role/eks-upgrade-bot', '--action-names', 'eks:DescribeCluster');
    expect(elsewhere.stderr).toContain('(NoSuchEntity)');
  });

  it('is itself an action the policy must allow: without it, AccessDenied', async () => {
    const s = await sim('demo', { iamPolicy: policyWithout(POLICY, 'iam:SimulatePrincipalPolicy') });
    const denied = await aws(s, 'iam', 'simulate-principal-policy', '--policy-source-arn', ROLE, '--action-names', 'eks:DescribeCluster');
    expect(denied.stderr).toContain('An error occurred (AccessDenied) when calling the SimulatePrincipalPolicy operation');
  });
});

describe('EC2 DryRun on the simulator', () => {
  it('answers DryRunOperation when the policy allows the call and UnauthorizedOperation when it does not, changing nothing', async () => {
    const s = await sim('workshop', { iamPolicy: policyWithout(POLICY, 'ec2:DescribeSubnets') });
    const allowed = await aws(s, 'ec2', 'describe-launch-template-versions', '--launch-template-name', 'custom-20250401115802906700000005', '--dry-run');
    expect(allowed.stderr).toContain('An error occurred (DryRunOperation) when calling the DescribeLaunchTemplateVersions operation: Request would have succeeded, but DryRun flag is set.');
    const denied = await aws(s, 'ec2', 'describe-subnets', '--dry-run');
    expect(denied.stderr).toContain('An error occurred (UnauthorizedOperation) when calling the DescribeSubnets operation');
    const modify = await aws(s, 'ec2', 'modify-launch-template', '--launch-template-name', 'custom-20250401115802906700000005', '--default-version', '1', '--dry-run');
    expect(modify.stderr).toContain('(DryRunOperation)');
    expect(s.world.calls.filter((c) => c.service === "ec2")).toEqual([]);
  });
});
