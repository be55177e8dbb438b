import { createHash } from 'node:crypto';
import type { KubeObject } from '../../ports/kube-port.js';
import { matchesSelector } from '../label-selector.js';

/**
 * Karpenter's own account of why a node cannot be replaced: `DisruptionBlocked` on a Node or NodeClaim and
 * `FailedDraining` on a Node (component karpenter, namespace default; reference/karpenter.md "Events"), turned into
 * one timeline event per node and message, naming the pods that block it and what to do; the thread shows them
 * folded into one message per NodePool (blocked-nodes.ts). Pure.
 */
export type NoticeReason = 'DisruptionBlocked' | 'FailedDraining';

export interface DisruptionNotice {
  /** Stable per object and message: the timeline records each once. */
  key: string;
  pool: string;
  reason: NoticeReason;
  /** The node concerned (for a NodeClaim event, its node when known). */
  node?: string;
  object: string;
  message: string;
  /** Pods and PDBs the message names (namespace/name). */
  pods: string[];
  pdbs: string[];
}

export interface NoticeLookup {
  /** The pools the step follows. */
  pools: ReadonlySet<string>;
  poolOfNode(name: string): string | undefined;
  poolOfClaim(name: string): string | undefined;
  nodeOfClaim(name: string): string | undefined;
  /** Events last seen before this (epoch ms) belong to an earlier time and are not reported. */
  since: number;
}

// Messages that are routine for fresh replacement nodes and say nothing about what holds the upgrade back.
const ROUTINE = /isn't initialized|not initialized|is nominated|being deleted|is deleting/i;

export function eventTime(event: KubeObject): number {
  for (const field of [event.lastTimestamp, event.eventTime, event.firstTimestamp, event.metadata.creationTimestamp]) {
    const parsed = Date.parse(String(field ?? ''));
    if (Number.isFinite(parsed)) return parsed;
  }
  return 0;
}

function namesIn(message: string): { pods: string[]; pdbs: string[] } {
  const pods = [...message.matchAll(/Pod=([\w.-]+\/[\w.-]+)/g)].map((m) => m[1]);
  const pdbs: string[] = [];
  for (const match of message.matchAll(/PodDisruptionBudget=\[([^\]]*)\]/g)) pdbs.push(...match[1].split(/[\s,]+/).filter(Boolean));
  for (const match of message.matchAll(/pdb "([\w.-]+\/[\w.-]+)"/gi)) pdbs.push(match[1]);
  return { pods: [...new Set(pods)], pdbs: [...new Set(pdbs)] };
}

const shortHash = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 10);

export function noticeOf(event: KubeObject, lookup: NoticeLookup): DisruptionNotice | undefined {
  const reason = event.reason;
  if (reason !== 'DisruptionBlocked' && reason !== 'FailedDraining') return undefined;
  const component = (event.source as { component?: string } | undefined)?.component ?? event.reportingComponent;
  if (component && component !== 'karpenter') return undefined;
  if (eventTime(event) < lookup.since) return undefined;
  const message = String(event.message ?? '');
  if (ROUTINE.test(message)) return undefined;
  const involved = (event.involvedObject ?? {}) as { kind?: string; name?: string };
  if (!involved.name) return undefined;
  let pool: string | undefined;
  let node: string | undefined;
  if (involved.kind === 'Node') {
    node = involved.name;
    pool = lookup.poolOfNode(node);
  } else if (involved.kind === 'NodeClaim') {
    node = lookup.nodeOfClaim(involved.name);
    pool = lookup.poolOfClaim(involved.name);
  } else {
    // NodePool-level "no allowed disruptions … due to blocking budget" is the budget we set (or the pause): not news.
    return undefined;
  }
  if (!pool || !lookup.pools.has(pool)) return undefined;
  const object = `${involved.kind.toLowerCase()} ${involved.name}`;
  return { key: `blocked:${node ?? involved.name}:${shortHash(`${reason}:${message}`)}`, pool, reason, node, object, message, ...namesIn(message) };
}

/**
 * The pods that block: those the message names, plus the pods on the node that the named PDBs protect (Karpenter's
 * DisruptionBlocked names only the PDB).
 */
export function blockingPods(notice: DisruptionNotice, pods: KubeObject[], pdbs: KubeObject[]): string[] {
  const found = new Set(notice.pods);
  for (const pdbName of notice.pdbs) {
    const [namespace, name] = pdbName.split('/');
    const pdb = pdbs.find((candidate) => candidate.metadata.namespace === namespace && candidate.metadata.name === name);
    if (!pdb || !notice.node) continue;
    for (const pod of pods) {
      if (pod.metadata.namespace !== namespace || pod.spec?.nodeName !== notice.node || pod.metadata.deletionTimestamp) continue;
      if (matchesSelector(pdb.spec?.selector, pod.metadata.labels)) found.add(`${namespace}/${pod.metadata.name}`);
    }
  }
  return [...found].sort();
}

export function describeNotice(notice: DisruptionNotice, pods: string[]): string {
  const where = notice.node ? `node ${notice.node}` : notice.object;
  const lines = [`Karpenter cannot ${notice.reason === 'FailedDraining' ? 'drain' : 'replace'} ${where} (NodePool ${notice.pool}): ${notice.message}`];
  if (pods.length > 0) lines.push(`Blocking pods: ${pods.slice(0, 10).join(', ')}${pods.length > 10 ? ` and ${pods.length - 10} more` : ''}`);
  lines.push(`What to do: ${remedyFor(notice)}`);
  return lines.join('\n');
}

/** What to do about a notice's cause (the PDBs it names, or its message). */
export function remedyFor(notice: Pick<DisruptionNotice, 'message' | 'pdbs'>): string {
  if (/do-not-disrupt/.test(notice.message)) {
    return 'remove the karpenter.sh/do-not-disrupt annotation from the pod (or delete the pod) once it is safe; the drift carries on by itself.';
  }
  if (notice.pdbs.length > 0 || /pdb|disruption budget/i.test(notice.message)) {
    return 'scale the workload up or relax its PodDisruptionBudget so one pod may go; Karpenter retries on its own. Pause holds the rollout meanwhile.';
  }
  if (/would schedule/i.test(notice.message)) return 'make room for the pods (NodePool limits, requirements, taints) so the replacement can take them.';
  return 'fix the cause above; Karpenter retries on its own. Pause holds the rollout meanwhile.';
}
