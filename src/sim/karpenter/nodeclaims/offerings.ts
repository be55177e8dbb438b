import type { KubeObject } from '../../../kube-types/kube-object.js';
import { allInstanceTypes, allocatableOf, describeInstanceTypes, instanceTypeLabels, priceOf, type InstanceType } from './instance-types.js';
import { CAPACITY_TYPE_LABEL, NODECLASS_LABEL, NODEPOOL_LABEL, ZONE_LABEL } from '../karpenter-keys.js';
import { podRequests } from './pod-facts.js';
import { addResources, NO_RESOURCES, subtractResources, type Resources } from './resource-quantity.js';
import { podSelectsLabels, requirementsMatch, toleratesTaints, type Requirement, type Taint } from './scheduling-rules.js';

/**
 * What a NodePool can launch: every (instance type, zone, capacity type) its requirements allow, with the labels
 * the resulting node would carry. Karpenter's scheduler narrows these per pod; the launch takes the cheapest left.
 */
export interface Offering {
  instanceType: InstanceType;
  zone: string;
  capacityType: string;
  price: number;
  allocatable: Resources;
  labels: Record<string, string>;
}

export interface PoolOptions {
  nodePool: KubeObject;
  nodeClass: KubeObject;
  taints: Taint[];
  offerings: Offering[];
}

// Keys whose values come from the offering itself; any other single-valued In requirement becomes a node label.
const WELL_KNOWN = /^(node\.kubernetes\.io\/instance-type|topology\.kubernetes\.io\/(zone|region)|karpenter\.sh\/capacity-type|kubernetes\.io\/(arch|os|hostname)|karpenter\.k8s\.aws\/instance-.*)$/;

export function poolRequirements(nodePool: KubeObject): Requirement[] {
  const requirements: Requirement[] = nodePool.spec?.template?.spec?.requirements ?? [];
  // Without a capacity-type requirement Karpenter launches on-demand.
  if (requirements.some((r) => r.key === CAPACITY_TYPE_LABEL)) return requirements;
  return [...requirements, { key: CAPACITY_TYPE_LABEL, operator: 'In', values: ['on-demand'] }];
}

/** Labels every node of the pool gets regardless of offering: template labels and single-valued custom requirements. */
export function poolLabels(nodePool: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(nodePool.spec?.template?.metadata?.labels ?? {}) };
  for (const requirement of nodePool.spec?.template?.spec?.requirements ?? []) {
    if (requirement.operator === 'In' && requirement.values?.length === 1 && !WELL_KNOWN.test(requirement.key)) {
      labels[requirement.key] = requirement.values[0];
    }
  }
  labels[NODEPOOL_LABEL] = nodePool.metadata.name;
  const nodeClassName = nodePool.spec?.template?.spec?.nodeClassRef?.name;
  if (nodeClassName) labels[NODECLASS_LABEL] = nodeClassName;
  return labels;
}

function zonesFor(requirements: Requirement[], region: string): string[] {
  const named = requirements.filter((r) => r.key === ZONE_LABEL && r.operator === 'In').flatMap((r) => r.values ?? []);
  return [...new Set([`${region}a`, `${region}b`, `${region}c`, ...named])];
}

/**
 * Requests of the DaemonSet pods that would land on a node with these labels and taints: Karpenter subtracts them
 * from every instance type's allocatable before packing pods.
 */
export function daemonSetOverhead(daemonSets: KubeObject[], labels: Record<string, string>, taints: Taint[]): Resources {
  return daemonSets
    .map((ds) => ({ metadata: { name: ds.metadata.name }, spec: ds.spec?.template?.spec ?? {} }) as KubeObject)
    .filter((pod) => toleratesTaints(pod, taints) && podSelectsLabels(pod, labels))
    .reduce((sum, pod) => addResources(sum, podRequests(pod)), NO_RESOURCES);
}

export function offeringsFor(nodePool: KubeObject, region: string, types: readonly InstanceType[] = allInstanceTypes(), daemonSets: KubeObject[] = []): Offering[] {
  const requirements = poolRequirements(nodePool);
  const base = poolLabels(nodePool);
  const offerings: Offering[] = [];
  for (const instanceType of types) {
    for (const zone of zonesFor(requirements, region)) {
      for (const capacityType of ['on-demand', 'spot']) {
        const labels = {
          ...base,
          ...instanceTypeLabels(instanceType),
          [ZONE_LABEL]: zone,
          'topology.kubernetes.io/region': region,
          [CAPACITY_TYPE_LABEL]: capacityType,
        };
        if (!requirementsMatch(labels, requirements)) continue;
        const overhead = daemonSetOverhead(daemonSets, labels, nodePool.spec?.template?.spec?.taints ?? []);
        const allocatable = subtractResources(allocatableOf(instanceType), overhead);
        offerings.push({ instanceType, zone, capacityType, price: priceOf(instanceType, capacityType), allocatable, labels });
      }
    }
  }
  return offerings;
}

/** Cheapest offering; ties go to the earlier instance type name, then to `pickZone` among equal prices. */
export function cheapestOffering(offerings: Offering[], random: () => number): Offering | undefined {
  if (offerings.length === 0) return undefined;
  const minPrice = Math.min(...offerings.map((o) => o.price));
  const cheapest = offerings.filter((o) => o.price === minPrice).sort((a, b) => a.instanceType.name.localeCompare(b.instanceType.name));
  const sameType = cheapest.filter((o) => o.instanceType.name === cheapest[0].instanceType.name);
  return sameType[Math.floor(random() * sameType.length) % sameType.length];
}

/** Distinct instance type names of the offerings, cheapest first (how Karpenter lists a claim's options). */
export function instanceTypeOptions(offerings: Offering[]): string[] {
  const byName = new Map<string, number>();
  for (const o of offerings) byName.set(o.instanceType.name, Math.min(o.price, byName.get(o.instanceType.name) ?? Infinity));
  return [...byName.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([name]) => name);
}

/** The instance-types field of Karpenter's "created nodeclaim" log line. */
export function describeOfferings(offerings: Offering[]): string {
  return describeInstanceTypes(instanceTypeOptions(offerings));
}
