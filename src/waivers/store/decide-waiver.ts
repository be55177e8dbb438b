import { findCluster, type ClustersConfig } from '../../config/clusters-config.js';
import type { AuthDeps } from '../../domain/authorize.js';
import type { Clock } from '../../ports/clock.js';
import type { Waiver } from '../model/waiver.js';
import type { WaiverStore } from '../model/waiver-store.js';
import { authorizeWaiverDecision } from '../policy/authorize-waiver.js';

export type WaiverDecision = 'approve' | 'reject' | 'revoke';

/** What came of a decision: the outcome counted and recorded, and, in words, what the decider is told. */
export interface WaiverDecided {
  /** approved / rejected / revoked, or refused, stale (already decided), unknown (gone). */
  result: string;
  refused?: boolean;
  /** The waiver's cluster, when there was a waiver to decide on (the audit record goes under it). */
  cluster?: string;
  /** The waiver as it is now, for its card, and the instant the card is drawn at. */
  waiver?: Waiver;
  at?: number;
  reply?: string;
}

const DONE: Record<WaiverDecision, string> = { approve: 'approved', reject: 'rejected', revoke: 'revoked' };
const GONE = 'This waiver no longer exists; nothing was changed.';

/**
 * Authorizes one decision on a waiver (approvers; the two-person rule for approve) and applies it to the store, whose
 * compare-and-set makes a second click, or a click on a waiver decided meanwhile, change nothing and say so.
 */
export async function decideWaiver(
  store: WaiverStore,
  deps: AuthDeps & { config: ClustersConfig; clock: Clock },
  decision: WaiverDecision,
  id: string,
  userId: string,
): Promise<WaiverDecided> {
  const waiver = await store.get(id);
  if (!waiver) return { result: 'unknown', reply: GONE };
  const cluster = findCluster(deps.config, waiver.cluster);
  const allowed = cluster ? await authorizeWaiverDecision(deps, cluster, waiver, userId, decision) : { allowed: false as const, reason: `${waiver.cluster} is not in clusters.yaml any more.` };
  if (!allowed.allowed) return { result: 'refused', refused: true, cluster: waiver.cluster, reply: allowed.reason };
  const now = deps.clock.now();
  const changed = await store[decision](id, userId, now);
  if (changed.outcome === 'unknown') return { result: 'unknown', reply: GONE };
  const shown = { cluster: waiver.cluster, waiver: changed.waiver, at: now };
  if (changed.outcome === 'not-allowed') {
    const by = changed.waiver.closedBy ?? changed.waiver.approvedBy;
    return { result: 'stale', ...shown, reply: `Nothing changed: this waiver is already ${changed.waiver.state}${by ? ` (by <@${by}>)` : ''}.` };
  }
  return { result: DONE[decision], ...shown };
}
