import type { SimKubeStoreImpl } from '../kube/kube-store.js';
import type { SimClock } from '../sim-clock.js';

/**
 * What happened in a cluster that a person watching the upgrade thread waits to see — a NodeClaim gone (Karpenter
 * replaced it), a Kubernetes Event such as Karpenter's DisruptionBlocked — with the wall-clock time it happened
 * beside the simulated one. The event → thread benchmark (P4) joins these to the times the fake Slack received the
 * posts and edits that show them; simulated time alone cannot, since the bot and Slack run on real time.
 */
export interface WallEvent {
  /** Wall-clock epoch ms (Date.now() in the simulator's process). */
  at: number;
  /** Simulated epoch ms. */
  simAt: number;
  cluster: string;
  kind: 'nodeclaim-deleted' | 'event';
  /** The NodeClaim's name, or the Event's involved object as Kind/name. */
  object: string;
  reason?: string;
  message?: string;
}

/** Oldest entries are dropped past this many (a 500-node drift records a few thousand). */
export const WALL_TIMELINE_LIMIT = 50_000;

/** Records `store`'s NodeClaim deletions and new Events into `timeline`; returns the unsubscribe. */
export function recordWallTimeline(timeline: WallEvent[], cluster: string, store: SimKubeStoreImpl, clock: SimClock): () => void {
  return store.subscribeRecords((record) => {
    let entry: Omit<WallEvent, 'at' | 'simAt' | 'cluster'> | undefined;
    if (record.resource === 'nodeclaims' && record.type === 'DELETED') entry = { kind: 'nodeclaim-deleted', object: record.object.metadata.name };
    else if (record.resource === 'events' && record.type === 'ADDED') {
      const involved = (record.object.involvedObject ?? {}) as { kind?: string; name?: string };
      entry = { kind: 'event', object: `${involved.kind ?? ''}/${involved.name ?? ''}`, reason: String(record.object.reason ?? ''), message: String(record.object.message ?? '') };
    }
    if (!entry) return;
    timeline.push({ at: Date.now(), simAt: clock.now(), cluster, ...entry });
    if (timeline.length > WALL_TIMELINE_LIMIT) timeline.splice(0, timeline.length - WALL_TIMELINE_LIMIT);
  });
}
