import type { KubeObject, KubePort, KubeWatchHandle, WatchEventType } from '../src/ports/kube-port.js';
import { isDisrupting, poolOf } from '../src/upgrade/drift-progress.js';

/**
 * Watches NodeClaims, Karpenter nodes and events while a drift rollout runs, so progress comes from the API server's
 * change stream rather than from polling loops. Keeps the current objects in memory, the most nodes seen disrupting
 * at once (the budget's proof), and the DisruptionBlocked / FailedDraining events not yet reported.
 */
export interface BlockEvent {
  key: string;
  text: string;
}

export interface DriftWatcher {
  nodeClaims(): KubeObject[];
  nodes(): KubeObject[];
  /** True once every watch has listed its objects at least once. */
  synced(): boolean;
  maxDisrupting(): number;
  /** Block events seen since the last call (each object+reason+message once). */
  takeBlockEvents(): BlockEvent[];
  stop(): void;
}

const BLOCK_REASONS = new Set(['DisruptionBlocked', 'FailedDraining']);

function tracker(onChange: () => void) {
  const objects = new Map<string, KubeObject>();
  let synced = false;
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return {
    objects,
    isSynced: () => synced,
    handlers: {
      onEvent(type: WatchEventType, object: KubeObject) {
        if (type === 'DELETED') objects.delete(key(object));
        else if (type !== 'BOOKMARK') objects.set(key(object), object);
        onChange();
      },
      onSynced(items: KubeObject[]) {
        objects.clear();
        for (const item of items) objects.set(key(item), item);
        synced = true;
        onChange();
      },
    },
  };
}

export async function startDriftWatcher(kube: KubePort, pools: Set<string>, onError: (error: Error) => void): Promise<DriftWatcher> {
  let maxDisrupting = 0;
  const reported = new Set<string>();
  const pending: BlockEvent[] = [];
  const nodes = tracker(() => {
    const disrupting = [...nodes.objects.values()].filter((node) => pools.has(poolOf(node) ?? '') && isDisrupting(node)).length;
    maxDisrupting = Math.max(maxDisrupting, disrupting);
  });
  const claims = tracker(() => undefined);
  const events = tracker(() => {
    for (const event of events.objects.values()) {
      if (!BLOCK_REASONS.has(String(event.reason))) continue;
      const involved = event.involvedObject as { kind?: string; name?: string } | undefined;
      const pool = involved?.kind === 'NodePool' ? involved.name : poolOf(nodes.objects.get(`/${involved?.name}`) ?? { metadata: { name: '' } });
      if (involved?.kind !== 'NodeClaim' && !pools.has(pool ?? '')) continue;
      const key = `${event.reason}:${involved?.kind}/${involved?.name}:${event.message}`;
      if (reported.has(key)) continue;
      reported.add(key);
      pending.push({ key, text: `${event.reason} on ${involved?.kind} ${involved?.name}: ${event.message}` });
    }
    events.objects.clear();
  });
  const handles: KubeWatchHandle[] = [];
  try {
    handles.push(await kube.watch('nodes', { labelSelector: 'karpenter.sh/nodepool' }, { ...nodes.handlers, onError }));
    handles.push(await kube.watch('nodeclaims', {}, { ...claims.handlers, onError }));
    handles.push(await kube.watch('events', {}, { ...events.handlers, onError }));
  } catch (error) {
    for (const handle of handles) handle.stop();
    throw error;
  }
  return {
    nodeClaims: () => [...claims.objects.values()],
    nodes: () => [...nodes.objects.values()],
    synced: () => nodes.isSynced() && claims.isSynced() && events.isSynced(),
    maxDisrupting: () => maxDisrupting,
    takeBlockEvents: () => pending.splice(0),
    stop: () => handles.forEach((handle) => handle.stop()),
  };
}
