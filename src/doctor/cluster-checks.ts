import { KUBE_RESOURCES } from '../kube/kube-resources.js';
import type { ClusterConfig } from '../config/clusters-config.js';
import { findControllers, firstUnsupported } from '../planning/controller-versions.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { failed, notChecked, passed, type DoctorCheck } from '../ports/doctor-check.js';
import { KubeApiError, type KubePort, type KubePortFactory, type KubeResource } from '../ports/kube-port.js';
import { describeReadError, isNotFound } from '../cluster-reader/read-error.js';

/**
 * doctor's checks inside one cluster, through the bot's own EKS token: the API answers, it knows the bot (an access
 * entry, or an aws-auth mapping), every verb on every resource of the ClusterRole is allowed (one
 * SelfSubjectAccessReview each, what `kubectl auth can-i` asks), and Karpenter, if installed, supports this version
 * and the next. Only reads and access reviews.
 */
export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export const CLUSTER_ROLE_FILE = 'deploy/rbac/cluster-role.yaml';

function resourceOf(group: string, name: string): { resource: KubeResource; subresource?: string } | undefined {
  const [plural, subresource] = name.split('/');
  const entry = Object.entries(KUBE_RESOURCES).find(([, info]) => info.group === group && info.plural === plural);
  return entry ? { resource: entry[0] as KubeResource, subresource } : undefined;
}

function accessEntryFix(cluster: ClusterConfig, principal: string): string {
  return `give the bot an access entry: aws eks create-access-entry --cluster-name ${cluster.name} --region ${cluster.region} --principal-arn ${principal} --kubernetes-groups eks-upgrade-bot, then kubectl apply -f ${CLUSTER_ROLE_FILE} and its binding (docs/deploy.md step 3)`;
}

export async function clusterChecks(kube: KubePortFactory, cluster: ClusterConfig, rules: RbacRule[], principal: string, version: string | undefined): Promise<DoctorCheck[]> {
  const at = (what: string) => `cluster.${cluster.name}.${what}`;
  let port: KubePort;
  let reachable: DoctorCheck;
  try {
    port = await kube(cluster);
    const gitVersion = await port.serverVersion();
    reachable = passed('cluster', at('reachable'), `the Kubernetes API answers with an EKS token (${gitVersion})`);
  } catch (error) {
    return [failed('cluster', at('reachable'), describeReadError(`reaching the Kubernetes API of ${cluster.name}`, error), `check that the bot can reach the cluster endpoint of ${cluster.name} (endpoint public access, or private access from the bot's VPC)`)];
  }
  const checks: DoctorCheck[] = [reachable];
  const missing: string[] = [];
  const unknown: string[] = [];
  try {
    for (const rule of rules) {
      for (const group of rule.apiGroups) {
        for (const name of rule.resources) {
          const resource = resourceOf(group, name);
          if (!resource) {
            unknown.push(`${name}${group ? `.${group}` : ''}`);
            continue;
          }
          for (const verb of rule.verbs) if (!(await port.canI({ verb, ...resource }))) missing.push(`${verb} ${name}${group ? `.${group}` : ''}`);
        }
      }
    }
  } catch (error) {
    if (error instanceof KubeApiError && (error.code === 401 || error.code === 403)) {
      checks.push(failed('cluster', at('access-entry'), `the API does not accept the bot's identity (${error.code})`, accessEntryFix(cluster, principal)));
      return checks;
    }
    checks.push(notChecked('cluster', at('rbac'), describeReadError('asking SelfSubjectAccessReviews', error)));
    return checks;
  }
  checks.push(passed('cluster', at('access-entry'), 'the API knows the bot\'s identity (an access entry or an aws-auth mapping)'));
  if (missing.length > 0) {
    checks.push(failed('cluster', at('rbac'), `RBAC refuses ${missing.join(', ')}`, `grant ${missing.join(', ')} to the bot's Kubernetes group: kubectl apply -f ${CLUSTER_ROLE_FILE} (the file lists every one) and check its ClusterRoleBinding`, missing));
  } else {
    checks.push(passed('cluster', at('rbac'), `every verb of ${CLUSTER_ROLE_FILE} is allowed${unknown.length ? ` (${unknown.join(', ')} not asked: unknown to the bot)` : ''}`));
  }
  checks.push(await karpenterCheck(port, at('karpenter'), version));
  return checks;
}

async function karpenterCheck(port: KubePort, id: string, version: string | undefined): Promise<DoctorCheck> {
  try {
    const deployments = await port.list('deployments');
    const found = findControllers([{ kind: 'Deployment', objects: deployments.items }]).find((c) => c.controller.id === 'karpenter');
    if (!found) {
      // Karpenter's CRDs without a visible controller Deployment (it may run elsewhere, e.g. on Fargate in its own account).
      const pools = await port.list('nodepools').then((list) => list.items.length, (error: unknown) => (isNotFound(error) ? 0 : Promise.reject(error)));
      if (pools === 0) return passed('cluster', id, 'no Karpenter here (no controller, no NodePools)');
      return notChecked('cluster', id, `${pools} NodePool(s) but no Karpenter controller Deployment the bot can see, so its version is unknown; check it supports Kubernetes ${version ?? 'this version'} and the next (karpenter.sh/docs/upgrading/compatibility)`);
    }
    if (!version || !found.found.version) return notChecked('cluster', id, `Karpenter found (${found.found.image}) but its version or the cluster's is unknown`);
    const minors = [version, nextMinorOf(version)].filter((m): m is string => Boolean(m));
    const unsupported = firstUnsupported(found.controller, found.found.version, minors);
    if (unsupported) return failed('cluster', id, `Karpenter ${found.found.version} does not support Kubernetes ${unsupported.minor} (needs ${unsupported.minimum} or later)`, found.controller.upgrade.replace('<version>', unsupported.minimum));
    return passed('cluster', id, `Karpenter ${found.found.version} supports Kubernetes ${minors.join(' and ')}`);
  } catch (error) {
    return notChecked('cluster', id, describeReadError('listing deployments', error));
  }
}
