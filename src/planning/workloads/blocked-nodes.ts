import { remedyFor, type DisruptionNotice, type NoticeReason } from './disruption-notices.js';

/**
 * The nodes of one NodePool that Karpenter says it cannot replace or drain right now, as ONE thread message edited
 * in place (the Karpenter step keeps one per pool): a 500-node drift where a hundred nodes wait on a PDB reads as
 * one message people reply to, not a hundred posts. Every notice behind it stays its own event in the exported
 * timeline. Pure: the step feeds it notices and the nodes' current state.
 */
export interface BlockedNode {
  node: string;
  reason: NoticeReason;
  message: string;
  /** The pods that block it (namespace/name), as blockingPods found them. */
  pods: string[];
  pdbs: string[];
  /** When Karpenter last said so (the event's time). */
  at: number;
}

export type BlockedBoard = Map<string, BlockedNode>;

/** A newer notice for a node replaces the older one: Karpenter's latest word on it is what holds it back now. */
export function noteBlocked(board: BlockedBoard, notice: DisruptionNotice, pods: string[], at: number): void {
  if (!notice.node) return;
  const known = board.get(notice.node);
  if (known && known.at > at) return;
  board.set(notice.node, { node: notice.node, reason: notice.reason, message: notice.message, pods, pdbs: notice.pdbs, at });
}

// Karpenter repeats a DisruptionBlocked event while the block lasts (the recorder folds repeats into a count and a
// newer lastTimestamp); one that has not been repeated for this long, while newer events came, no longer holds.
export const BLOCK_STALE_MS = 5 * 60_000;

/**
 * Drops the nodes that are no longer blocked: gone (replaced), or — for "cannot replace" — now being disrupted
 * after all; a "cannot drain" holds until the node is gone, since its drain is what is stuck. `newest` is the time
 * of the newest Karpenter event seen, so staleness is measured on the events' own clock.
 */
export function pruneBlocked(board: BlockedBoard, node: (name: string) => { exists: boolean; disrupting: boolean }, newest: number): void {
  for (const [name, entry] of board) {
    const now = node(name);
    const unblocked = !now.exists || (entry.reason === 'DisruptionBlocked' && now.disrupting) || newest - entry.at > BLOCK_STALE_MS;
    if (unblocked) board.delete(name);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function listPods(pods: string[], shown = 3): string {
  return `${pods.slice(0, shown).join(', ')}${pods.length > shown ? ` and ${pods.length - shown} more` : ''}`;
}

/** One line per blocked node, longest blocked first, the first `shown` of them; then what to do. */
export function describeBlockedPool(pool: string, board: BlockedBoard, everBlocked: number, shown = 5): string {
  const entries = [...board.values()].sort((a, b) => a.at - b.at || a.node.localeCompare(b.node));
  const sofar = `${plural(everBlocked, 'node')} blocked so far; every notice is in the exported timeline`;
  if (entries.length === 0) return `No node of NodePool ${pool} is blocked now (${sofar}).`;
  const lines = [`${plural(entries.length, 'node')} of NodePool ${pool} cannot be replaced now (${sofar}):`];
  for (const entry of entries.slice(0, shown)) {
    const what = entry.reason === 'FailedDraining' ? 'drain' : 'replace';
    lines.push(`• Karpenter cannot ${what} node ${entry.node}: ${entry.message}${entry.pods.length ? ` — blocking pods: ${listPods(entry.pods)}` : ''}`);
  }
  if (entries.length > shown) lines.push(`… and ${plural(entries.length - shown, 'more node')}`);
  const remedies = [...new Set(entries.map((entry) => remedyFor(entry)))];
  lines.push(...remedies.map((remedy) => `What to do: ${remedy}`));
  return lines.join('\n');
}

/** The message's last word once the pool's drift is over (or the step was aborted). */
export function describeBlockedOutcome(pool: string, stillBlocked: number, everBlocked: number, aborted: boolean): string {
  const sofar = `${plural(everBlocked, 'node')} of NodePool ${pool} ${everBlocked === 1 ? 'was' : 'were'} blocked during the drift; every notice is in the exported timeline`;
  if (aborted && stillBlocked > 0) return `Aborted with ${plural(stillBlocked, 'node')} still blocked (${sofar}).`;
  return `No node is blocked any more (${sofar}).`;
}
