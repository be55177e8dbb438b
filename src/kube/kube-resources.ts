/**
 * Where each resource the product touches lives in the Kubernetes API. Fixed rather than discovered: these are
 * the stable versions on every EKS version we support (1.28+: policy/v1 PDBs, autoscaling/v2 HPAs) and Karpenter
 * v1, and skipping discovery saves a round trip per call. A cluster without Karpenter answers 404 for its kinds.
 */

import type { KubeResource } from '../ports/kube-port.js';

export interface ResourceInfo {
  /** '' for the core group (served under /api/v1). */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const KUBE_RESOURCES: Record<KubeResource, ResourceInfo> = {
  namespaces: { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false },
  nodes: { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  pods: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  events: { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
  persistentvolumeclaims: { group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  poddisruptionbudgets: { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  horizontalpodautoscalers: { group: 'autoscaling', version: 'v2', plural: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true },
  nodepools: { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', kind: 'NodePool', namespaced: false },
  nodeclaims: { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims', kind: 'NodeClaim', namespaced: false },
  ec2nodeclasses: { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses', kind: 'EC2NodeClass', namespaced: false },
};

/**
 * The URL path of a collection (no name) or of one object, relative to the server. A namespaced resource without
 * a namespace means "across all namespaces" (only valid for list and watch).
 */
export function resourcePath(resource: KubeResource, options: { namespace?: string; name?: string } = {}): string {
  const info = KUBE_RESOURCES[resource];
  if (!info) throw new Error(`unknown Kubernetes resource "${resource}"`);
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const scope = info.namespaced && options.namespace ? `/namespaces/${encodeURIComponent(options.namespace)}` : '';
  const name = options.name ? `/${encodeURIComponent(options.name)}` : '';
  return `${base}${scope}/${info.plural}${name}`;
}

/** "pod orders/orders-5b97", "node ip-10-0-1-5", "pods in namespace orders", "nodes": for error messages. */
export function describeTarget(resource: KubeResource, options: { namespace?: string; name?: string } = {}): string {
  const info = KUBE_RESOURCES[resource];
  const singular = info.kind.toLowerCase();
  if (options.name) return `${singular} ${options.namespace ? `${options.namespace}/` : ''}${options.name}`;
  return options.namespace && info.namespaced ? `${resource} in namespace ${options.namespace}` : resource;
}
