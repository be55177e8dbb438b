import type { KubeObject } from '../../../kube-types/kube-object.js';
import { planPlacement, type PoolLimits } from './claim-planner.js';
import { inFlightClaims, schedulableSlots, type ClusterView } from '../cluster-view.js';
import { cpuMillis, memoryBytes, readResourceList } from './resource-quantity.js';
import type { KarpenterTelemetry } from '../karpenter-telemetry.js';
import type { NodeClaimLauncher } from './nodeclaim-lifecycle.js';
import type { PoolOptions } from './offerings.js';
import { isProvisionable, podKey } from './pod-facts.js';

/**
 * Karpenter's provisioner: pods nobody can place (no existing node has room, or none they tolerate and select)
 * are packed onto NodeClaims already in flight, and what is left gets new NodeClaims within the pools' limits.
 * Pods that no pool can take get a FailedScheduling event, as Karpenter reports them.
 */
function remainingLimits(view: ClusterView, pools: PoolOptions[]): PoolLimits {
  const limits: PoolLimits = new Map();
  for (const { nodePool } of pools) {
    const declared = nodePool.spec?.limits;
    if (!declared || (declared.cpu === undefined && declared.memory === undefined)) continue;
    const used = view.managed
      .filter((m) => m.pool === nodePool.metadata.name && m.claim.status?.capacity)
      .map((m) => readResourceList(m.claim.status.capacity))
      .reduce((sum, r) => ({ cpu: sum.cpu + r.cpu, memory: sum.memory + r.memory }), { cpu: 0, memory: 0 });
    limits.set(nodePool.metadata.name, {
      ...(declared.cpu !== undefined ? { cpu: cpuMillis(String(declared.cpu)) - used.cpu } : {}),
      ...(declared.memory !== undefined ? { memory: memoryBytes(String(declared.memory)) - used.memory } : {}),
    });
  }
  return limits;
}

export function provision(input: { view: ClusterView; pools: PoolOptions[]; launcher: NodeClaimLauncher; telemetry: KarpenterTelemetry }): KubeObject[] {
  const { view, pools, launcher, telemetry } = input;
  const pending = view.pendingPods.filter(isProvisionable);
  if (pending.length === 0) return [];
  const plan = planPlacement({
    pods: pending,
    nodes: schedulableSlots(view),
    inFlight: inFlightClaims(view, pools, launcher.offeringOf),
    pools,
    limits: remainingLimits(view, pools),
  });
  const provisionable = pending.filter((pod) => !plan.onNodes.has(podKey(pod)));
  if (provisionable.length === 0) return [];
  for (const { pod, reason } of plan.unschedulable) {
    telemetry.event({ kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      'FailedScheduling', `Failed to schedule pod, ${reason}`, { type: 'Warning', dedupeMs: 60_000 });
  }
  let created: KubeObject[] = [];
  if (plan.newClaims.length > 0) {
    telemetry.info('found provisionable pod(s)', 'provisioner', {
      Pods: provisionable.slice(0, 5).map(podKey).join(', ') + (provisionable.length > 5 ? ` and ${provisionable.length - 5} other(s)` : ''),
    });
    telemetry.info('computed new nodeclaim(s) to fit pod(s)', 'provisioner', {
      nodeclaims: plan.newClaims.length,
      pods: plan.newClaims.reduce((n, claim) => n + claim.pods.length, 0),
    });
    created = plan.newClaims.map((claim) => launcher.create(claim, 'provisioner'));
  }
  for (const [key, claim] of plan.nominations) {
    const name = claim.existingName ?? created[plan.newClaims.indexOf(claim)]?.metadata.name;
    const pod = pending.find((p) => podKey(p) === key);
    if (!pod || !name) continue;
    telemetry.event({ kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      'Nominated', `Pod should schedule on: nodeclaim/${name}`, { dedupeMs: 60_000 });
  }
  return created;
}
