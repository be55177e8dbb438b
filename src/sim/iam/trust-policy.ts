import { AwsApiError } from '../aws/aws-error.js';
import { conditionHolds, type PolicyStatement } from './policy-document.js';

/**
 * Role trust policies: who may assume a role. AssumeRole and AssumeRoleWithWebIdentity succeed only when the role's
 * trust policy allows the caller — for IRSA the cluster's OIDC provider (`Federated`) with the service account in
 * the token's `sub`, for a role in the same account an `AWS` principal naming the caller or its account — and are
 * otherwise refused with AccessDenied (IAM User Guide, "Policy evaluation logic" for cross-account and
 * role trust; STS API reference, AssumeRole and AssumeRoleWithWebIdentity errors).
 *
 * A role without a policy given to the simulator trusts its own account's identities (`AWS: arn:aws:iam::<acct>:root`)
 * and any OIDC provider of that account, so setups that assume a role of the simulated account keep working, while a
 * role in another account that nothing trusts is refused as AWS refuses it.
 */
export interface TrustStatement extends Omit<PolicyStatement, 'Resource' | 'NotResource'> {
  Principal?: '*' | { AWS?: string | string[]; Federated?: string | string[]; Service?: string | string[] };
}

export interface TrustPolicy {
  Version?: string;
  Statement: TrustStatement | TrustStatement[];
}

/** By role ARN. */
export type TrustPolicies = ReadonlyMap<string, TrustPolicy>;

export interface TrustRequest {
  action: 'sts:AssumeRole' | 'sts:AssumeRoleWithWebIdentity';
  roleArn: string;
  /** The caller's ARN (AssumeRole), or undefined for a web identity. */
  callerArn?: string;
  callerAccount?: string;
  /** The OIDC provider ARN a web identity token's issuer maps to. */
  federated?: string;
  /** Condition keys: `<issuer>:sub`, `<issuer>:aud`, `aws:PrincipalArn`. */
  context: Record<string, string>;
}

const list = <T,>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const roleAccount = (roleArn: string) => /^arn:aws[a-z-]*:iam::(\d{12}):/.exec(roleArn)?.[1] ?? '';

export function defaultTrustPolicy(account: string): TrustPolicy {
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${account}:root` }, Action: ['sts:AssumeRole', 'sts:TagSession'] },
      { Effect: 'Allow', Principal: { Federated: `arn:aws:iam::${account}:oidc-provider/*` }, Action: 'sts:AssumeRoleWithWebIdentity' },
    ],
  };
}

function principalMatches(statement: TrustStatement, request: TrustRequest): boolean {
  const principal = statement.Principal;
  if (principal === '*') return true;
  if (!principal) return false;
  if (request.action === 'sts:AssumeRoleWithWebIdentity') {
    return list(principal.Federated).some((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(request.federated ?? ''));
  }
  return list(principal.AWS).some((p) => p === '*' || p === request.callerArn || p === request.callerAccount || p === `arn:aws:iam::${request.callerAccount}:root`);
}

function actionMatches(statement: TrustStatement, action: string): boolean {
  const actions = list(statement.Action);
  return actions.some((a) => a === '*' || a.toLowerCase() === action.toLowerCase() || a.toLowerCase() === 'sts:*');
}

export function trustAllows(policy: TrustPolicy, request: TrustRequest): boolean {
  const statements = list(policy.Statement).filter((s) => actionMatches(s, request.action) && principalMatches(s, request) && conditionHolds(s.Condition, request.context));
  if (statements.some((s) => s.Effect === 'Deny')) return false;
  return statements.some((s) => s.Effect === 'Allow');
}

/** Throws STS's AccessDenied unless the role's trust policy (or the default) allows the request. */
export function checkTrust(policies: TrustPolicies | undefined, simulatedAccount: string, request: TrustRequest): void {
  const policy = policies?.get(request.roleArn) ?? defaultTrustPolicy(simulatedAccount);
  // A role in another account never gets the simulated account's default trust: nothing trusts it.
  const applies = policies?.has(request.roleArn) || roleAccount(request.roleArn) === simulatedAccount;
  if (applies && trustAllows(policy, request)) return;
  const who = request.callerArn ?? `the web identity of ${request.federated ?? 'an unknown provider'}`;
  throw new AwsApiError(403, 'AccessDenied', `User: ${who} is not authorized to perform: ${request.action} on resource: ${request.roleArn}`);
}

export function parseTrustPolicies(input: unknown, source = 'trust policies'): Map<string, TrustPolicy> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error(`${source}: expected an object of role ARN to trust policy document`);
  const out = new Map<string, TrustPolicy>();
  for (const [roleArn, doc] of Object.entries(input as Record<string, TrustPolicy>)) {
    if (!/^arn:aws[a-z-]*:iam::\d{12}:role\//.test(roleArn)) throw new Error(`${source}: "${roleArn}" is not a role ARN`);
    if (!doc || typeof doc !== 'object' || doc.Statement === undefined) throw new Error(`${source}: the trust policy of ${roleArn} needs a "Statement"`);
    out.set(roleArn, doc);
  }
  return out;
}
