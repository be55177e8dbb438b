/**
 * Whether a node may be voluntarily disrupted, and if not the exact DisruptionBlocked message Karpenter v1 puts on
 * the Node and NodeClaim (karpenter.md, Events; pkg/controllers/disruption/types.go NewCandidate and
 * pkg/utils/pdb). A NodeClaim with terminationGracePeriod may be disrupted despite PDBs and do-not-disrupt pods:
 * its drain is bounded, so eventual disruption (drift) goes ahead.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { ClusterView, ManagedNode } from '../cluster-view.js';
import { hasDoNotDisrupt, isReschedulable, podKey } from '../nodeclaims/pod-facts.js';
import { selectorMatches } from '../nodeclaims/scheduling-rules.js';

export const MESSAGES = {
  notInitialized: "Node isn't initialized",
  nodeDoNotDisrupt: 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
  podDoNotDisrupt: (pod: KubeObject) => `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=${podKey(pod)})`,
  pdbBlocks: (pdbs: string[]) => `Pdb prevents pod evictions (PodDisruptionBudget=[${pdbs.join(' ')}])`,
  multiplePdbs: (pod: KubeObject, pdbs: string[]) => `Pod has multiple PodDisruptionBudgets (Pod=${podKey(pod)}, PodDisruptionBudget=[${pdbs.join(' ')}])`,
  budgetBlocks: (reason: string) => `No allowed disruptions for disruption reason ${reason} due to blocking budget`,
  notAllPodsSchedule: (details: string) => `Not all pods would schedule, ${details}`,
};

function pdbKey(pdb: KubeObject): string {
  return `${pdb.metadata.namespace ?? 'default'}/${pdb.metadata.name}`;
}

/** PDBs selecting the pod (same namespace; an empty selector selects every pod there). */
export function pdbsFor(pod: KubeObject, pdbs: KubeObject[]): KubeObject[] {
  return pdbs.filter((pdb) =>
    (pdb.metadata.namespace ?? 'default') === (pod.metadata.namespace ?? 'default') &&
    selectorMatches(pdb.spec?.selector, pod.metadata.labels ?? {}));
}

/**
 * Undefined when the node can be a candidate; otherwise the DisruptionBlocked message. Nodes that are already being
 * disrupted are not candidates either, but that is no news, so callers skip them before asking.
 */
export function blockedReason(managed: ManagedNode, view: ClusterView): string | undefined {
  if (!managed.initialized || !managed.node) return MESSAGES.notInitialized;
  if (hasDoNotDisrupt(managed.node)) return MESSAGES.nodeDoNotDisrupt;
  if (managed.claim.spec?.terminationGracePeriod) return undefined;
  const pods = managed.pods.filter(isReschedulable);
  const pinned = pods.find(hasDoNotDisrupt);
  if (pinned) return MESSAGES.podDoNotDisrupt(pinned);
  const blocking = new Set<string>();
  for (const pod of pods) {
    const matching = pdbsFor(pod, view.pdbs);
    if (matching.length > 1) return MESSAGES.multiplePdbs(pod, matching.map(pdbKey));
    // A PDB whose status the controller has not filled yet allows nothing, as the apiserver would treat it.
    if (matching.length === 1 && (matching[0].status?.disruptionsAllowed ?? 0) <= 0) blocking.add(pdbKey(matching[0]));
  }
  if (blocking.size > 0) return MESSAGES.pdbBlocks([...blocking].sort());
  return undefined;
}

/** Counts per pool for the budget: initialized nodes, and those already disrupting (NotReady, deleting, marked). */
export function poolDisruptionCounts(view: ClusterView, marked: Set<string>): Map<string, { nodes: number; disrupting: number }> {
  const counts = new Map<string, { nodes: number; disrupting: number }>();
  for (const managed of view.managed) {
    if (!managed.initialized || !managed.node) continue;
    const entry = counts.get(managed.pool) ?? { nodes: 0, disrupting: 0 };
    entry.nodes += 1;
    if (!managed.ready || managed.deleting || managed.disruptedTaint || marked.has(managed.claim.metadata.name)) entry.disrupting += 1;
    counts.set(managed.pool, entry);
  }
  return counts;
}
