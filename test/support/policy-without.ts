import type { PolicyDocument } from '@eks-upgrade-bot/sim';

/** deploy/iam/permissions-policy.json (or any policy) with one action taken out of every statement. */
export function policyWithout(policy: PolicyDocument, action: string): PolicyDocument {
  const statements = Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement];
  return {
    ...policy,
    Statement: statements.map((s) => ({ ...s, Action: (Array.isArray(s.Action) ? s.Action : [s.Action!]).filter((a) => a !== action) })).filter((s) => s.Action.length > 0),
  };
}
