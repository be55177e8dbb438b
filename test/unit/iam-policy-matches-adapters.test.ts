import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowedActions, loadIamPolicyFile } from '@eks-upgrade-bot/sim';
import { NEEDS_NO_PERMISSION, PRODUCT_ACTIONS } from '../../src/aws/iam-actions.js';

/**
 * deploy/iam/permissions-policy.json must allow exactly what the product calls: the actions are derived from the SDK command
 * classes (and paginators) the AWS adapters in src/aws/ import, plus the permissions AWS checks alongside a call
 * (CreateNodegroup passes the node role: iam:PassRole) and the role assumption behind `roleArn`, less the calls IAM
 * never authorizes (sts:GetCallerIdentity). Optional actions (doctor's iam:SimulatePrincipalPolicy) sit in statements
 * whose Sid starts with "Optional". src/aws/iam-actions.ts, which doctor asks IAM about, lists the same actions, each
 * with the statement that grants it.
 */
const AWS_ADAPTERS = 'src/aws';
const SERVICE_PREFIX: Record<string, string> = { eks: 'eks', ssm: 'ssm', ec2: 'ec2', sts: 'sts', iam: 'iam', 'auto-scaling': 'autoscaling', cloudwatch: 'cloudwatch' };
const IMPLIED: Record<string, string[]> = { 'eks:CreateNodegroup': ['iam:PassRole'] };

function actionsCalledByAdapters(): string[] {
  const actions = new Set<string>();
  for (const file of readdirSync(AWS_ADAPTERS).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(join(AWS_ADAPTERS, file), 'utf8');
    for (const [, names, pkg] of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/client-([a-z0-9-]+)'/g)) {
      const prefix = SERVICE_PREFIX[pkg];
      if (!prefix) throw new Error(`${file} imports @aws-sdk/client-${pkg}: add its IAM prefix to SERVICE_PREFIX`);
      for (const raw of names.split(',')) {
        const name = raw.replace(/^\s*type\s+/, '').trim().split(/\s+as\s+/)[0];
        const operation = /^(\w+)Command$/.exec(name)?.[1] ?? /^paginate(\w+)$/.exec(name)?.[1];
        if (!operation) continue;
        actions.add(`${prefix}:${operation}`);
        for (const implied of IMPLIED[`${prefix}:${operation}`] ?? []) actions.add(implied);
      }
    }
    // roleArn: the credentials come from STS AssumeRole (web identity needs no identity-policy permission).
    if (/\bfromTemporaryCredentials\(/.test(source)) actions.add('sts:AssumeRole');
  }
  return [...actions].filter((a) => !NEEDS_NO_PERMISSION.includes(a));
}

describe('deploy/iam/permissions-policy.json', () => {
  const policy = loadIamPolicyFile('deploy/iam/permissions-policy.json');
  const granted = allowedActions(policy);

  it('has no wildcard actions (least privilege names every action)', () => {
    expect(granted.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('allows every action the AWS adapters can call and nothing else', () => {
    const derived = actionsCalledByAdapters();
    expect(derived).toContain('eks:UpdateClusterVersion'); // the derivation itself found the adapters
    const expected = new Set(derived);
    expect({ missingFromPolicy: [...expected].filter((a) => !granted.includes(a)).sort(), notCalledByAnyAdapter: granted.filter((a) => !expected.has(a)).sort() }).toEqual({
      missingFromPolicy: [],
      notCalledByAnyAdapter: [],
    });
  });

  it('marks optional actions with an Optional… Sid, and iam-actions.ts names each action with the statement that grants it', () => {
    const statements = (Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]).filter((s) => s.Effect === 'Allow');
    const optionalInPolicy = statements.filter((s) => s.Sid?.startsWith('Optional')).flatMap((s) => [s.Action ?? []].flat());
    expect(optionalInPolicy.sort()).toEqual(PRODUCT_ACTIONS.filter((a) => a.optional).map((a) => a.action).sort());
    expect(PRODUCT_ACTIONS.map((a) => a.action).sort()).toEqual([...new Set(actionsCalledByAdapters())].sort());
    for (const { action, sid } of PRODUCT_ACTIONS) {
      expect({ action, statement: statements.find((s) => [s.Action ?? []].flat().includes(action))?.Sid }).toEqual({ action, statement: sid });
    }
  });
});
