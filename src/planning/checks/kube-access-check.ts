import type { AccessQuestion, KubeResource } from '../../ports/kube-port.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import type { Finding } from '../../ports/finding.js';

/**
 * ACC001 — the bot's own Kubernetes access on the target cluster. Every permission the job uses is asked of the
 * apiserver (SelfSubjectAccessReview) before anything starts, so a missing RBAC rule is a finding at plan time
 * naming the verb and resource, not a 403 halfway through a drain. deploy/rbac/cluster-role.yaml grants exactly
 * this list (test/unit/kube-access-rbac.test.ts holds the two together).
 */
export interface RequiredAccess extends AccessQuestion {
  /** The API group, for the sentence ("nodepools.karpenter.sh"). */
  group: string;
  why: string;
}

const read = (resource: KubeResource, group: string, why: string): RequiredAccess[] =>
  (['get', 'list', 'watch'] as const).map((verb) => ({ verb, resource, group, why }));

export const REQUIRED_KUBE_ACCESS: readonly RequiredAccess[] = [
  ...read('namespaces', '', 'status and preflight'),
  ...read('nodes', '', 'kubelet versions, skew and drains'),
  ...read('pods', '', 'drain blockers, Fargate pods, image inventory'),
  ...read('events', '', 'Karpenter disruption notices'),
  ...read('persistentvolumeclaims', '', 'workload checks'),
  ...read('deployments', 'apps', 'workload checks and restarts'),
  ...read('statefulsets', 'apps', 'workload checks and restarts'),
  ...read('daemonsets', 'apps', 'workload checks'),
  ...read('replicasets', 'apps', 'pod owners'),
  ...read('services', '', 'the backends of fail-closed admission webhooks'),
  ...read('validatingwebhookconfigurations', 'admissionregistration.k8s.io', 'fail-closed admission webhooks'),
  ...read('mutatingwebhookconfigurations', 'admissionregistration.k8s.io', 'fail-closed admission webhooks'),
  ...read('eniconfigs', 'crd.k8s.amazonaws.com', 'free IPs of custom-networking pod subnets'),
  ...read('poddisruptionbudgets', 'policy', 'drain blockers'),
  ...read('horizontalpodautoscalers', 'autoscaling', 'deprecated API checks'),
  ...read('nodepools', 'karpenter.sh', 'Karpenter drift'),
  ...read('nodeclaims', 'karpenter.sh', 'Karpenter drift'),
  ...read('ec2nodeclasses', 'karpenter.k8s.aws', 'Karpenter AMIs'),
  { verb: 'patch', resource: 'nodepools', group: 'karpenter.sh', why: 'the upgrade disruption budget' },
  { verb: 'patch', resource: 'ec2nodeclasses', group: 'karpenter.k8s.aws', why: 'the next AMI of pinned classes' },
  { verb: 'patch', resource: 'deployments', group: 'apps', why: 'Fargate restarts and scale remedies' },
  { verb: 'patch', resource: 'statefulsets', group: 'apps', why: 'Fargate restarts' },
  { verb: 'patch', resource: 'nodes', group: '', why: 'cordoning self-managed nodes' },
  { verb: 'create', resource: 'pods', subresource: 'eviction', group: '', why: 'draining nodes with PDBs honoured' },
  { verb: 'delete', resource: 'pods', group: '', why: 'Force on a blocked drain' },
];

export interface AccessAnswer {
  verb: string;
  resource: KubeResource;
  subresource?: string;
  allowed: boolean;
}

export function describeAccess(access: { verb: string; resource: string; subresource?: string; group?: string }): string {
  const resource = access.subresource ? `${access.resource}/${access.subresource}` : access.resource;
  return `${access.verb} ${access.group ? `${resource}.${access.group}` : resource}`;
}

export function checkKubeAccess(snapshot: ClusterSnapshot): Finding[] {
  const answers = snapshot.kube.access;
  // Not asked (an unreachable API is reported once, by EKS090) or nothing missing: nothing to say.
  if (!answers?.ok) return [];
  const missing = REQUIRED_KUBE_ACCESS.filter((need) =>
    answers.value.some((a) => a.verb === need.verb && a.resource === need.resource && (a.subresource ?? '') === (need.subresource ?? '') && !a.allowed),
  );
  if (missing.length === 0) return [];
  return [
    {
      code: 'ACC001',
      severity: 'error',
      title: `The bot's Kubernetes identity on ${snapshot.name} may not ${missing.map((m) => `${describeAccess(m)} (${m.why})`).join(', ')}`,
      resources: missing.map((m) => `rbac/${describeAccess(m).replace(' ', ':')}`),
      remedy:
        'Apply deploy/rbac/cluster-role.yaml to the cluster and give the bot\'s IAM role an access entry in the group eks-upgrade-bot ' +
        '(aws eks create-access-entry --cluster-name CLUSTER --principal-arn ROLE_ARN --kubernetes-groups eks-upgrade-bot), then plan again.',
    },
  ];
}
