import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../../kube-types/kube-object.js';
import { accessKeyOf, type CallerIdentities } from '../iam/caller-identities.js';

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

/** The identity in an EKS token, or undefined when the token is not one the simulator can trust. */
export function eksTokenIdentity(token: string, identities: CallerIdentities, clusterName: string): string | undefined {
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (url.searchParams.get('Action') !== 'GetCallerIdentity') return undefined;
  // The token is bound to one cluster by the signed x-k8s-aws-id header (aws-iam-authenticator checks it).
  if (!(url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';').includes('x-k8s-aws-id') || !clusterName) return undefined;
  const key = accessKeyOf(url.searchParams.get('X-Amz-Credential'));
  if (!key || identities.isUnknownSessionKey(key)) return undefined;
  return identities.identityOf(key).arn;
}

export function createKubeAccess(identities: CallerIdentities, options: KubeAccessOptions | undefined) {
  const groups = options?.accessEntryGroups ?? DEFAULT_ACCESS_ENTRY_GROUPS;
  const objects = options?.objects ?? [];
  return {
    userOf(req: IncomingMessage, clusterName: string): KubeRequestAccess {
      const token = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
      if (!options || !token.startsWith('k8s-aws-v1.')) return { user: ADMIN_USER, allows: () => true };
      const arn = eksTokenIdentity(token, identities, clusterName);
      if (!arn) return { user: undefined, allows: () => false };
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
