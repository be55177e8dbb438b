import type { KubeObject } from '../../../kube-types/kube-object.js';
import { planPlacement, type PlannedClaim } from '../nodeclaims/claim-planner.js';
import { schedulableSlots, type ClusterView, type ManagedNode } from '../cluster-view.js';
import { blockedReason, MESSAGES, poolDisruptionCounts } from './disruption-candidates.js';
import { allowedDisruptions, availableDisruptions } from './disruption-budget.js';
import type { PoolOptions } from '../nodeclaims/offerings.js';
import { isReschedulable, podKey } from '../nodeclaims/pod-facts.js';
import { getCondition, isConditionTrue } from '../status-conditions.js';

/**
 * The Drift disruption method, decided from one cluster view (pkg/controllers/disruption/drift.go): drifted,
 * disruptable nodes, oldest-drifted first, each as long as its pool's Drifted budget has room. A node whose pods
 * fit on the remaining nodes is deleted; otherwise replacements are planned for the pods that do not fit.
 * Budgets count in-flight commands as disrupting, so the total never exceeds what the budget allows.
 */
export interface DisruptionCommand {
  reason: 'Drifted' | 'Empty';
  candidate: ManagedNode;
  pods: KubeObject[];
  decision: 'replace' | 'delete';
  replacements: PlannedClaim[];
}

export interface BlockedNotice {
  object: { kind: 'Node' | 'NodeClaim' | 'NodePool'; name: string; uid?: string };
  message: string;
}

export interface DisruptionDecision {
  commands: DisruptionCommand[];
  blocked: BlockedNotice[];
}

function driftedSince(managed: ManagedNode): string {
  return getCondition(managed.claim, 'Drifted')?.lastTransitionTime ?? '';
}

export function decideDriftDisruptions(input: { view: ClusterView; pools: PoolOptions[]; marked: Set<string> }): DisruptionDecision {
  const { view, pools, marked } = input;
  const decision: DisruptionDecision = { commands: [], blocked: [] };
  const counts = poolDisruptionCounts(view, marked);
  const available = new Map<string, number>();
  for (const nodePool of view.nodePools) {
    const count = counts.get(nodePool.metadata.name) ?? { nodes: 0, disrupting: 0 };
    const { allowed } = allowedDisruptions(nodePool, 'Drifted', count.nodes, view.now);
    available.set(nodePool.metadata.name, availableDisruptions(allowed, count.disrupting));
    if (allowed === 0 && count.nodes > 0) {
      decision.blocked.push({ object: { kind: 'NodePool', name: nodePool.metadata.name, uid: nodePool.metadata.uid }, message: MESSAGES.budgetBlocks('Drifted') });
    }
  }

  const candidates = view.managed
    .filter((m) => isConditionTrue(m.claim, 'Drifted') && !m.deleting && !marked.has(m.claim.metadata.name) && !m.disruptedTaint)
    .sort((a, b) => driftedSince(a).localeCompare(driftedSince(b)) || a.claim.metadata.name.localeCompare(b.claim.metadata.name));
  const leaving = new Set(view.managed.filter((m) => m.deleting || marked.has(m.claim.metadata.name)).flatMap((m) => (m.node ? [m.node.metadata.name] : [])));
  // One set of slots for the whole pass, so two commands never count on the same spare room.
  const slots = schedulableSlots(view);
  for (const candidate of candidates) {
    const blocked = blockedReason(candidate, view);
    if (blocked) {
      const nodeName = candidate.node?.metadata.name;
      if (nodeName) decision.blocked.push({ object: { kind: 'Node', name: nodeName, uid: candidate.node?.metadata.uid }, message: blocked });
      decision.blocked.push({ object: { kind: 'NodeClaim', name: candidate.claim.metadata.name, uid: candidate.claim.metadata.uid }, message: blocked });
      continue;
    }
    if ((available.get(candidate.pool) ?? 0) <= 0) continue;
    const nodeName = candidate.node!.metadata.name;
    const pods = candidate.pods.filter(isReschedulable);
    const plan = planPlacement({ pods, nodes: slots.filter((slot) => slot.name !== nodeName && !leaving.has(slot.name)), inFlight: [], pools });
    if (plan.unschedulable.length > 0) {
      const details = plan.unschedulable.map(({ pod, reason }) => `${podKey(pod)} => ${reason}`).join('; ');
      decision.blocked.push({ object: { kind: 'Node', name: nodeName, uid: candidate.node?.metadata.uid }, message: MESSAGES.notAllPodsSchedule(details) });
      decision.blocked.push({ object: { kind: 'NodeClaim', name: candidate.claim.metadata.name, uid: candidate.claim.metadata.uid }, message: MESSAGES.notAllPodsSchedule(details) });
      continue;
    }
    available.set(candidate.pool, (available.get(candidate.pool) ?? 0) - 1);
    leaving.add(nodeName);
    decision.commands.push({
      reason: 'Drifted',
      candidate,
      pods,
      decision: plan.newClaims.length > 0 ? 'replace' : 'delete',
      replacements: plan.newClaims,
    });
  }
  return decision;
}
