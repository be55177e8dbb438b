import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SimStrictness } from '../../strictness.js';
import type { KubeObject } from '../../../kube-types/kube-object.js';
import { accessKeyOf, type CallerIdentities } from '../../iam/caller-identities.js';

/**
 * Authentication and RBAC authorization of the simulated apiservers, modelled on EKS: a bearer token
 * `k8s-aws-v1.<base64url presigned STS GetCallerIdentity URL>` is the AWS identity that presigned it, and an access
 * entry maps that identity to the Kubernetes user named by its ARN (an assumed role's session ARN) with the entry's
 * groups. RBAC then authorizes each request against the ClusterRoles bound to the user or its groups, the way the
 * RBAC authorizer does (rules: apiGroups × resources[/subresource] × verbs, optional resourceNames). A request
 * without an EKS token is the cluster admin (system:masters): kubectl sends no bearer token over plain HTTP, and the
 * simulator's kubeconfig must keep working for people looking at the cluster while the bot is held to RBAC.
 */
export interface KubeAccessOptions {
  /** ClusterRole and ClusterRoleBinding objects, e.g. parsed from deploy/kubernetes/rbac/cluster-role.yaml. */
  objects: KubeObject[];
  /** The Kubernetes groups the access entry gives every AWS identity (default ["eks-upgrade-bot"]). */
  accessEntryGroups?: string[];
}

export interface KubeUser {
  name: string;
  groups: string[];
}

export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** What handleKubeRequest needs: who is asking (undefined: the token is not valid) and whether RBAC allows it. */
export interface KubeRequestAccess {
  user: KubeUser | undefined;
  allows(attributes: ResourceAttributes): boolean;
  /** Told of every request answered 403 (the simulator lists them with the refused AWS calls). */
  onForbidden?(message: string): void;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export const ADMIN_USER: KubeUser = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
export const DEFAULT_ACCESS_ENTRY_GROUPS = ['eks-upgrade-bot'];

function ruleAllows(rule: PolicyRule, a: ResourceAttributes): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(a.verb)) return false;
  if (!(rule.apiGroups ?? []).some((g) => g === '*' || g === a.group)) return false;
  const wanted = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  const resourceOk = resources.some((r) => r === '*' || r === wanted || (a.subresource ? r === `*/${a.subresource}` : false) || (r === `${a.resource}/*` && Boolean(a.subresource)));
  if (!resourceOk) return false;
  return !rule.resourceNames?.length || (a.name !== undefined && rule.resourceNames.includes(a.name));
}

/** The rules that apply to a user: every ClusterRole bound to it or one of its groups. */
function rulesFor(objects: KubeObject[], user: KubeUser): PolicyRule[] {
  const roles = new Map(objects.filter((o) => o.kind === 'ClusterRole').map((o) => [o.metadata.name, (o.rules as PolicyRule[]) ?? []]));
  const rules: PolicyRule[] = [];
  for (const binding of objects.filter((o) => o.kind === 'ClusterRoleBinding')) {
    const subjects = (binding.subjects as Array<{ kind: string; name: string }>) ?? [];
    const bound = subjects.some((s) => (s.kind === 'User' && s.name === user.name) || (s.kind === 'Group' && user.groups.includes(s.name)));
    const roleRef = binding.roleRef as { kind: string; name: string } | undefined;
    if (bound && roleRef?.kind === 'ClusterRole') rules.push(...(roles.get(roleRef.name) ?? []));
  }
  return rules;
}

/**
 * The identity in an EKS token, or undefined when the apiserver would answer 401: not a presigned
 * GetCallerIdentity, not bound to a cluster by the signed `x-k8s-aws-id` header, signed more than the token lifetime
 * ago in wall-clock time (aws-iam-authenticator accepts a token for 15 minutes from X-Amz-Date, whatever
 * X-Amz-Expires says: pkg/token/token.go), or — where the simulator knows the signer's secret: the sessions it
 * issued and the static keys it was given (KNOWN_STATIC_KEYS by default) — signed for another cluster. Any other
 * static key's secret is unknown to the simulator, so for those the cluster binding cannot be checked beyond the
 * signed header's presence.
 */
export function eksTokenIdentity(
  token: string,
  identities: CallerIdentities,
  clusterName: string,
  check: { lifetimeMs?: number; now?: () => number } = {},
): string | undefined {
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (url.searchParams.get('Action') !== 'GetCallerIdentity') return undefined;
  // The token is bound to one cluster by the signed x-k8s-aws-id header (aws-iam-authenticator checks it).
  if (!(url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';').includes('x-k8s-aws-id') || !clusterName) return undefined;
  if (check.lifetimeMs !== undefined) {
    const signedAt = amzDate(url.searchParams.get('X-Amz-Date'));
    const now = (check.now ?? Date.now)();
    if (signedAt === undefined || now - signedAt > check.lifetimeMs || signedAt - now > 5 * 60_000) return undefined;
  }
  const key = accessKeyOf(url.searchParams.get('X-Amz-Credential'));
  if (!key || identities.isUnknownSessionKey(key)) return undefined;
  const secret = identities.secretOf?.(key);
  if (check.lifetimeMs !== undefined && secret && !signedFor(url, clusterName, secret)) return undefined;
  return identities.identityOf(key).arn;
}

/** 20250101T120000Z → epoch ms. */
function amzDate(value: string | null): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined;
}

const rfc3986 = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** SigV4 query-string signature of the token's URL, with `x-k8s-aws-id: <cluster>` as the signed header. */
function signedFor(url: URL, clusterName: string, secret: string): boolean {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const query = params.map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
  const signedHeaders = url.searchParams.get('X-Amz-SignedHeaders') ?? '';
  const headerValues: Record<string, string> = { host: url.host, 'x-k8s-aws-id': clusterName };
  const canonicalHeaders = signedHeaders.split(';').map((h) => `${h}:${headerValues[h] ?? ''}\n`).join('');
  const [, date, region, service] = (url.searchParams.get('X-Amz-Credential') ?? '').split('/');
  const payloadHashes = ['UNSIGNED-PAYLOAD', createHash('sha256').update('').digest('hex')];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date ?? ''), region ?? ''), service ?? ''), 'aws4_request');
  const given = url.searchParams.get('X-Amz-Signature');
  return payloadHashes.some((payload) => {
    const canonical = ['GET', url.pathname || '/', query, canonicalHeaders, signedHeaders, payload].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', url.searchParams.get('X-Amz-Date'), scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
    return createHmac('sha256', signingKey).update(toSign).digest('hex') === given;
  });
}

export function createKubeAccess(identities: CallerIdentities, options: KubeAccessOptions | undefined, strictness?: Pick<SimStrictness, 'eksTokenLifetimeMs'>) {
  const groups = options?.accessEntryGroups ?? DEFAULT_ACCESS_ENTRY_GROUPS;
  const objects = options?.objects ?? [];
  const check = { lifetimeMs: strictness?.eksTokenLifetimeMs };
  return {
    userOf(req: IncomingMessage, clusterName: string): KubeRequestAccess {
      const token = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      // No EKS token: the admin of the simulator's kubeconfig (kubectl over plain HTTP).
      if (!token.startsWith('k8s-aws-v1.')) return { user: ADMIN_USER, allows: () => true };
      // An EKS token is checked with or without --rbac: the cluster it names and its age.
      const arn = eksTokenIdentity(token, identities, clusterName, check);
      if (!arn) return { user: undefined, allows: () => false };
      if (!options) return { user: ADMIN_USER, allows: () => true };
      const user: KubeUser = { name: arn, groups: [...groups, 'system:authenticated'] };
      const rules = rulesFor(objects, user);
      return { user, allows: (attributes) => rules.some((rule) => ruleAllows(rule, attributes)) };
    },
  };
}

/** The apiserver's Forbidden message (k8s.io/apiserver responsewriters.forbiddenMessage + errors.NewForbidden). */
export function forbiddenMessage(user: KubeUser, a: ResourceAttributes): string {
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const subject = a.name ? `${qualified} "${a.name}"` : qualified;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}
