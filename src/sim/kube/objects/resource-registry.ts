import { eventPrinter, namespacePrinter, nodePrinter, podPrinter, pvcPrinter, servicePrinter, defaultPrinter } from '../tables/table-printers-core.js';
import { daemonSetPrinter, deploymentPrinter, hpaPrinter, pdbPrinter, replicaSetPrinter, statefulSetPrinter } from '../tables/table-printers-apps.js';
import { ec2NodeClassPrinter, nodeClaimPrinter, nodePoolPrinter } from '../tables/table-printers-karpenter.js';
import type { TablePrinter } from '../tables/table-printer.js';

/**
 * Every kind the simulated apiserver serves: where it lives (group/version), how it is named (plural, singular,
 * short names as `kubectl get no|po|deploy|pdb|ec2nc` use them), whether it is namespaced, its subresources and
 * its table printer. Discovery, routing, the store and the table renderer all read this one table.
 */
export interface Subresource {
  name: string; // "status", "scale", "eviction"
  kind: string;
  verbs: string[];
  /** Set when the subresource's kind lives in another group (pods/eviction is policy/v1 Eviction). */
  group?: string;
  version?: string;
}

export interface ResourceType {
  group: string; // '' for the core group
  version: string; // the preferred (storage) version
  /** Older versions served by the same storage while the cluster's minor is at most `untilMinor`. */
  extraVersions?: Array<{ version: string; untilMinor: number }>;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources: Subresource[];
  printer: TablePrinter | ((minor: number) => TablePrinter);
  /** metadata.generation tracks spec changes (not for pods, nodes, events, namespaces). */
  usesGeneration: boolean;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusOf = (kind: string): Subresource => ({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
const scale: Subresource = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] };

export const RESOURCES: ResourceType[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', singular: 'namespace', namespaced: false, shortNames: ['ns'], subresources: [statusOf('Namespace'), { name: 'finalize', kind: 'Namespace', verbs: ['update'] }], printer: namespacePrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', singular: 'node', namespaced: false, shortNames: ['no'], subresources: [statusOf('Node')], printer: nodePrinter, usesGeneration: false },
  {
    group: '', version: 'v1', kind: 'Pod', plural: 'pods', singular: 'pod', namespaced: true, shortNames: ['po'], categories: ['all'],
    subresources: [statusOf('Pod'), { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] }, { name: 'binding', kind: 'Binding', verbs: ['create'] }, { name: 'log', kind: 'Pod', verbs: ['get'] }],
    printer: podPrinter, usesGeneration: false,
  },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', singular: 'event', namespaced: true, shortNames: ['ev'], subresources: [], printer: eventPrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'], subresources: [statusOf('PersistentVolumeClaim')], printer: pvcPrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes', singular: 'persistentvolume', namespaced: false, shortNames: ['pv'], subresources: [statusOf('PersistentVolume')], printer: defaultPrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: [statusOf('Service')], printer: servicePrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', singular: 'secret', namespaced: true, subresources: [], printer: defaultPrinter, usesGeneration: false },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', singular: 'configmap', namespaced: true, shortNames: ['cm'], subresources: [], printer: defaultPrinter, usesGeneration: false },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: [statusOf('Deployment'), scale], printer: deploymentPrinter, usesGeneration: true },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: [statusOf('ReplicaSet'), scale], printer: replicaSetPrinter, usesGeneration: true },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: [statusOf('StatefulSet'), scale], printer: statefulSetPrinter, usesGeneration: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: [statusOf('DaemonSet')], printer: daemonSetPrinter, usesGeneration: true },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], subresources: [statusOf('PodDisruptionBudget')], printer: pdbPrinter, usesGeneration: true },
  {
    group: 'autoscaling', version: 'v2', extraVersions: [{ version: 'v2beta2', untilMinor: 25 }], kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler',
    namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: [statusOf('HorizontalPodAutoscaler')], printer: hpaPrinter, usesGeneration: true,
  },
  { group: 'karpenter.sh', version: 'v1', kind: 'NodePool', plural: 'nodepools', singular: 'nodepool', namespaced: false, categories: ['karpenter'], subresources: [statusOf('NodePool')], printer: nodePoolPrinter, usesGeneration: true },
  { group: 'karpenter.sh', version: 'v1', kind: 'NodeClaim', plural: 'nodeclaims', singular: 'nodeclaim', namespaced: false, categories: ['karpenter'], subresources: [statusOf('NodeClaim')], printer: nodeClaimPrinter, usesGeneration: true },
  { group: 'karpenter.k8s.aws', version: 'v1', kind: 'EC2NodeClass', plural: 'ec2nodeclasses', singular: 'ec2nodeclass', namespaced: false, shortNames: ['ec2nc', 'ec2ncs'], categories: ['karpenter'], subresources: [statusOf('EC2NodeClass')], printer: ec2NodeClassPrinter, usesGeneration: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', singular: 'validatingwebhookconfiguration', namespaced: false, categories: ['api-extensions'], subresources: [], printer: defaultPrinter, usesGeneration: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration', namespaced: false, categories: ['api-extensions'], subresources: [], printer: defaultPrinter, usesGeneration: true },
  // The VPC CNI's CRD, served only on clusters that have ENIConfigs (custom networking); elsewhere 404 as without the CRD.
  { group: 'crd.k8s.amazonaws.com', version: 'v1alpha1', kind: 'ENIConfig', plural: 'eniconfigs', singular: 'eniconfig', namespaced: false, subresources: [], printer: defaultPrinter, usesGeneration: true },
];

const byPlural = new Map(RESOURCES.map((r) => [r.plural, r]));

export function resourceType(plural: string): ResourceType | undefined {
  return byPlural.get(plural);
}

/** The versions of a resource served by a cluster at `minor` (preferred first). */
export function servedVersions(type: ResourceType, minor: number): string[] {
  return [type.version, ...(type.extraVersions ?? []).filter((v) => minor <= v.untilMinor).map((v) => v.version)];
}

/** The resource behind a URL's group/version/plural, if this cluster serves it. */
export function findResource(group: string, version: string, plural: string, minor: number): ResourceType | undefined {
  const type = byPlural.get(plural);
  if (!type || type.group !== group) return undefined;
  return servedVersions(type, minor).includes(version) ? type : undefined;
}

export function apiVersionOf(type: ResourceType, version = type.version): string {
  return type.group ? `${type.group}/${version}` : version;
}

export function printerFor(type: ResourceType, minor: number): TablePrinter {
  return typeof type.printer === 'function' ? type.printer(minor) : type.printer;
}

/** The group/versions served, preferred version first in each group, core group excluded. */
export function apiGroups(minor: number): Array<{ name: string; versions: string[] }> {
  const groups = new Map<string, string[]>();
  for (const type of RESOURCES) {
    if (!type.group) continue;
    const versions = groups.get(type.group) ?? [];
    for (const v of servedVersions(type, minor)) if (!versions.includes(v)) versions.push(v);
    groups.set(type.group, versions);
  }
  return [...groups].map(([name, versions]) => ({ name, versions }));
}

/** Minor version number from a gitVersion like v1.30.14-eks-f69f56f. */
export function minorOf(gitVersion: string): number {
  const match = /^v?\d+\.(\d+)/.exec(gitVersion);
  return match ? Number(match[1]) : 0;
}
