import type { ClusterView, ManagedNode } from './cluster-view.js';
import { parseGoDuration } from './cron-schedule.js';
import { blockedReason, MESSAGES, poolDisruptionCounts } from './disruption-candidates.js';
import { allowedDisruptions, availableDisruptions } from './disruption-budget.js';
import type { DisruptionDecision } from './drift-disruption.js';
import { isReschedulable } from './pod-facts.js';
import { podSelectsLabels, toleratesTaints } from './scheduling-rules.js';
import { getCondition } from './status-conditions.js';

/**
 * The Emptiness method (runs before Drift, as in Karpenter): in pools whose consolidationPolicy allows it, a node
 * with no reschedulable pods for consolidateAfter is deleted, within the pool's Empty budget. More careful than
 * Karpenter on purpose: replacements still in flight and nodes a pending pod could use are never taken, so the
 * sim does not race its own scheduler.
 */
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

export function decideEmptiness(input: {
  view: ClusterView;
  marked: Set<string>;
  protectedClaims: Set<string>;
  lastPodActivity: (nodeName: string) => number | undefined;
}): DisruptionDecision {
  const { view, marked } = input;
  const decision: DisruptionDecision = { commands: [], blocked: [] };
  const counts = poolDisruptionCounts(view, marked);
  for (const nodePool of view.nodePools) {
    const disruption = nodePool.spec?.disruption ?? {};
    const after = consolidateAfterMs(disruption.consolidateAfter);
    if (!POLICIES.has(disruption.consolidationPolicy ?? 'WhenEmptyOrUnderutilized') || after === undefined) continue;
    const empty = view.managed.filter((m) => m.pool === nodePool.metadata.name && isEmptyLongEnough(m, after, input));
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

function isEmptyLongEnough(
  m: ManagedNode,
  after: number,
  input: { view: ClusterView; marked: Set<string>; protectedClaims: Set<string>; lastPodActivity: (nodeName: string) => number | undefined },
): boolean {
  const name = m.claim.metadata.name;
  if (!m.initialized || !m.node || m.deleting || m.disruptedTaint || input.marked.has(name) || input.protectedClaims.has(name)) return false;
  if (m.pods.some(isReschedulable)) return false;
  const node = m.node;
  if (input.view.pendingPods.some((pod) => toleratesTaints(pod, node.spec?.taints) && podSelectsLabels(pod, node.metadata.labels ?? {}))) return false;
  const initializedAt = Date.parse(getCondition(m.claim, 'Initialized')?.lastTransitionTime ?? '') || 0;
  const since = Math.max(initializedAt, input.lastPodActivity(node.metadata.name) ?? 0);
  return input.view.now - since >= after;
}
