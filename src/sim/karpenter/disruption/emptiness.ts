/**
 * The Emptiness method (runs before Drift, as in Karpenter): in pools whose consolidationPolicy allows it, a node
 * with no reschedulable pods for consolidateAfter is deleted, within the pool's Empty budget. More careful than
 * Karpenter on purpose: replacements still in flight and nodes a pending pod could use are never taken, so the
 * sim does not race its own scheduler.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { ClusterView, ManagedNode } from '../cluster-view.js';
import { parseGoDuration } from './cron-schedule.js';
import { blockedReason, MESSAGES, poolDisruptionCounts } from './disruption-candidates.js';
import { allowedDisruptions, availableDisruptions } from './disruption-budget.js';
import type { DisruptionDecision } from './drift-disruption.js';
import { isReschedulable } from '../nodeclaims/pod-facts.js';
import { podSelectsLabels, toleratesTaints } from '../nodeclaims/scheduling-rules.js';
import { getCondition } from '../status-conditions.js';

const POLICIES = new Set(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'WhenUnderutilized']);

function consolidateAfterMs(value: unknown): number | undefined {
  if (value === 'Never') return undefined;
  if (value === undefined || value === null || value === '') return 0;
  try {
    return parseGoDuration(String(value));
  } catch {
    return undefined;
  }
}

interface EmptinessInput {
  view: ClusterView;
  marked: Set<string>;
  protectedClaims: Set<string>;
  lastPodActivity: (nodeName: string) => number | undefined;
}

/** Pools whose consolidation policy removes empty nodes, with their consolidateAfter in ms. */
function consolidatingPools(view: ClusterView): Array<{ nodePool: KubeObject; after: number }> {
  const pools: Array<{ nodePool: KubeObject; after: number }> = [];
  for (const nodePool of view.nodePools) {
    const disruption = nodePool.spec?.disruption ?? {};
    const after = consolidateAfterMs(disruption.consolidateAfter);
    if (!POLICIES.has(disruption.consolidationPolicy ?? 'WhenEmptyOrUnderutilized') || after === undefined) continue;
    pools.push({ nodePool, after });
  }
  return pools;
}

export function decideEmptiness(input: EmptinessInput): DisruptionDecision {
  const { view, marked } = input;
  const decision: DisruptionDecision = { commands: [], blocked: [] };
  const counts = poolDisruptionCounts(view, marked);
  for (const { nodePool, after } of consolidatingPools(view)) {
    const empty = view.managed.filter((m) => {
      const since = m.pool === nodePool.metadata.name ? emptySince(m, input) : undefined;
      return since !== undefined && view.now - since >= after;
    });
    if (empty.length === 0) continue;
    const count = counts.get(nodePool.metadata.name) ?? { nodes: 0, disrupting: 0 };
    const { allowed } = allowedDisruptions(nodePool, 'Empty', count.nodes, view.now);
    let available = availableDisruptions(allowed, count.disrupting);
    if (allowed === 0) {
      decision.blocked.push({ object: { kind: 'NodePool', name: nodePool.metadata.name, uid: nodePool.metadata.uid }, message: MESSAGES.budgetBlocks('Empty') });
    }
    for (const candidate of empty) {
      if (available <= 0 || blockedReason(candidate, view)) continue;
      available -= 1;
      decision.commands.push({ reason: 'Empty', candidate, pods: [], decision: 'delete', replacements: [] });
    }
  }
  return decision;
}

/**
 * When the next node that is empty but not yet for consolidateAfter will have been empty long enough: before then,
 * the passage of time alone cannot make decideEmptiness choose differently. Infinity when no node is waiting.
 */
export function nextEmptinessDue(input: EmptinessInput): number {
  let next = Infinity;
  for (const { nodePool, after } of consolidatingPools(input.view)) {
    for (const m of input.view.managed) {
      const since = m.pool === nodePool.metadata.name ? emptySince(m, input) : undefined;
      if (since !== undefined && since + after > input.view.now) next = Math.min(next, since + after);
    }
  }
  return next;
}

/** Since when the node has had no reschedulable pods, or undefined when it is not an emptiness candidate at all. */
function emptySince(m: ManagedNode, input: EmptinessInput): number | undefined {
  const name = m.claim.metadata.name;
  if (!m.initialized || !m.node || m.deleting || m.disruptedTaint || input.marked.has(name) || input.protectedClaims.has(name)) return undefined;
  if (m.pods.some(isReschedulable)) return undefined;
  const node = m.node;
  if (input.view.pendingPods.some((pod) => toleratesTaints(pod, node.spec?.taints) && podSelectsLabels(pod, node.metadata.labels ?? {}))) return undefined;
  const initializedAt = Date.parse(getCondition(m.claim, 'Initialized')?.lastTransitionTime ?? '') || 0;
  return Math.max(initializedAt, input.lastPodActivity(node.metadata.name) ?? 0);
}
