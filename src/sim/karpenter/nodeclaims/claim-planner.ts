import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { Offering, PoolOptions } from './offerings.js';
import { podKey, podRequests } from './pod-facts.js';
import { addResources, fitsWithin, NO_RESOURCES, subtractResources, type Resources } from './resource-quantity.js';
import { podSelectsLabels, toleratesTaints, type Taint } from './scheduling-rules.js';

/**
 * Karpenter's scheduling simulation, pared down: pods (largest first) go to existing nodes with room, then to
 * NodeClaims already in flight, then into new NodeClaims. A new claim starts with every offering of the first pool
 * (by weight) that can take the pod and keeps only the offerings that still fit as pods join — so the launch can
 * pick the cheapest instance type that holds them all. Pure: callers act on the plan.
 */
export interface NodeSlot {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  remaining: Resources;
}

export interface PlannedClaim {
  pool: PoolOptions;
  offerings: Offering[];
  pods: KubeObject[];
  requests: Resources;
  /** Set for claims that already exist (in flight); unset for claims the plan would create. */
  existingName?: string;
}

export interface PlacementPlan {
  onNodes: Map<string, string>;
  newClaims: PlannedClaim[];
  nominations: Map<string, PlannedClaim>;
  unschedulable: Array<{ pod: KubeObject; reason: string }>;
}

/** Remaining pool limits (karpenter.sh NodePool spec.limits), in CPU millicores and memory bytes. */
export type PoolLimits = Map<string, { cpu?: number; memory?: number }>;

function tryJoin(claim: PlannedClaim, pod: KubeObject, request: Resources): boolean {
  if (!toleratesTaints(pod, claim.pool.taints)) return false;
  const total = addResources(claim.requests, request);
  const offerings = claim.offerings.filter((o) => podSelectsLabels(pod, o.labels) && fitsWithin(total, o.allocatable));
  if (offerings.length === 0) return false;
  claim.offerings = offerings;
  claim.pods.push(pod);
  claim.requests = total;
  return true;
}

function withinLimits(offering: Offering, limit: { cpu?: number; memory?: number } | undefined): boolean {
  if (!limit) return true;
  const capacity = offering.instanceType;
  return (limit.cpu === undefined || capacity.vcpu * 1000 <= limit.cpu) &&
    (limit.memory === undefined || capacity.memoryMiB * 1024 * 1024 <= limit.memory);
}

export function planPlacement(input: {
  pods: KubeObject[];
  nodes: NodeSlot[];
  inFlight: PlannedClaim[];
  pools: PoolOptions[];
  limits?: PoolLimits;
}): PlacementPlan {
  const plan: PlacementPlan = { onNodes: new Map(), newClaims: [], nominations: new Map(), unschedulable: [] };
  const limits: PoolLimits = new Map([...(input.limits ?? new Map()).entries()].map(([k, v]) => [k, { ...v }]));
  const pods = [...input.pods].sort((a, b) => {
    const ra = podRequests(a);
    const rb = podRequests(b);
    return rb.cpu - ra.cpu || rb.memory - ra.memory || podKey(a).localeCompare(podKey(b));
  });
  for (const pod of pods) {
    const request = podRequests(pod);
    const node = input.nodes.find(
      (slot) => toleratesTaints(pod, slot.taints) && podSelectsLabels(pod, slot.labels) && fitsWithin(request, slot.remaining),
    );
    if (node) {
      node.remaining = subtractResources(node.remaining, request);
      plan.onNodes.set(podKey(pod), node.name);
      continue;
    }
    const joined = [...input.inFlight, ...plan.newClaims].find((claim) => tryJoin(claim, pod, request));
    if (joined) {
      plan.nominations.set(podKey(pod), joined);
      continue;
    }
    let opened: PlannedClaim | undefined;
    for (const pool of input.pools) {
      const limit = limits.get(pool.nodePool.metadata.name);
      const offerings = pool.offerings.filter((o) => withinLimits(o, limit));
      const claim: PlannedClaim = { pool, offerings, pods: [], requests: NO_RESOURCES };
      if (offerings.length > 0 && tryJoin(claim, pod, request)) {
        opened = claim;
        if (limit) {
          const smallest = Math.min(...claim.offerings.map((o) => o.instanceType.vcpu * 1000));
          if (limit.cpu !== undefined) limit.cpu -= smallest;
          if (limit.memory !== undefined) limit.memory -= Math.min(...claim.offerings.map((o) => o.instanceType.memoryMiB * 1024 * 1024));
        }
        break;
      }
    }
    if (opened) {
      plan.newClaims.push(opened);
      plan.nominations.set(podKey(pod), opened);
    } else {
      plan.unschedulable.push({ pod, reason: unschedulableReason(pod, input.pools) });
    }
  }
  return plan;
}

function unschedulableReason(pod: KubeObject, pools: PoolOptions[]): string {
  if (pools.length === 0) return 'no nodepools found';
  const tolerated = pools.filter((pool) => toleratesTaints(pod, pool.taints));
  if (tolerated.length === 0) {
    return `incompatible with nodepool "${pools[0].nodePool.metadata.name}", did not tolerate ${pools[0].taints.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).join(', ')}`;
  }
  return 'no instance type satisfied resources and requirements';
}
