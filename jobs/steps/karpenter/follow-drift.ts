import type { KubeObject, KubePort } from '../../../src/ports/kube-port.js';
import type { JobControls } from '../../../src/ports/job-controls.js';
import type { StepContext } from '../../engine/step-context.js';
import { countDrift, formatDriftProgress, type DriftCounts } from '../../../src/planning/count-drift.js';
import { isNodeDisruptingBudget, nodeNameOfClaim, poolOfClaim, poolOfNode } from '../../../src/planning/karpenter-objects.js';
import { saveKarpenterState, type KarpenterStepState, type PoolPlan } from './karpenter-step-state.js';
import { describeVerification, isVerified, verifyPool } from '../../../src/planning/planner/verify-pool.js';
import { createChangeSignal } from '../../engine/watch-cache.js';
import { createWatchCacheShelf, type WatchCacheShelf } from '../../engine/watch-cache-shelf.js';
import { createBlockedNodesMessages } from './blocked-nodes-message.js';

/**
 * Follows the drift of the step's NodePools for one bounded window by watching NodeClaims, Nodes, Pods and
 * Karpenter's Events (never by polling the cluster): counts per pool, the status card's "NodeClaims replaced 3/10",
 * a post per tenth of the rollout, one blocked-nodes message per pool with the blocking pods and PDBs (from the
 * pods and PDBs watches, blocked-nodes-message.ts), replacements that never become Ready, a warning when nothing
 * moves for long. The window ends when every pool is done and verified, when
 * it has run `windowMs`, or when the job is paused or aborted (checked each tick from the job's controls).
 *
 * Why windows: a BullMQ job that holds its worker for the hour a big rollout takes has no checkpoint; returning
 * 'wait' after a few minutes saves the counts in job.data and frees the worker, so a crash anywhere loses at most
 * one window of reporting and no change. The watches outlive the window on this worker (watch-cache-shelf.ts): the
 * next window takes them back and lists nothing; a window on another worker re-syncs from a first list.
 */
export interface FollowOptions {
  windowMs: number;
  /** How often the job's controls (pause / abort) and the timeouts are checked; default: the engine's poll interval, at most 5 s. */
  tickMs?: number;
  /** A replacement NodeClaim not Ready this long after creation is reported (Karpenter's registration TTL is 15 min). */
  readyTimeoutMs: number;
  /** No NodeClaim replaced for this long: warn (once per replaced count). */
  stallMs: number;
  /** After the last replacement, how long pods may take to be Running before the step reports them and finishes. */
  podSettleMs: number;
  /** How many blocked nodes a pool's blocked-nodes message names before "… and N more". */
  blockedShown: number;
}

export const DEFAULT_FOLLOW_OPTIONS: FollowOptions = {
  windowMs: 3 * 60_000,
  readyTimeoutMs: 15 * 60_000,
  stallMs: 30 * 60_000,
  podSettleMs: 5 * 60_000,
  blockedShown: 5,
};

export type WindowEnd = { end: 'complete' } | { end: 'window' } | { end: 'paused' | 'aborted'; controls: JobControls };

/** The window's watches, kept between windows of the same job (the shelf) for `lingerMs` after a 'window' or 'paused' end. */
export interface FollowWatches {
  shelf: WatchCacheShelf;
  lingerMs: number;
}

export async function followDrift(
  ctx: StepContext, kube: KubePort, state: KarpenterStepState, options: FollowOptions, watches: FollowWatches = { shelf: createWatchCacheShelf(), lingerMs: 0 },
): Promise<WindowEnd> {
  const deadline = ctx.clock.now() + options.windowMs;
  const tickMs = options.tickMs ?? Math.max(20, Math.min(ctx.pollIntervalMs, 5_000));
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const following = new Set(Object.keys(state.pools));
  // Nodes disrupting right now as the budget counts them, by pool: updated on every node event so no overlap goes unseen.
  const disrupted = new Map<string, string>();
  let disruptionSeen = false;
  const measureDisruption = () => {
    const counts = new Map<string, number>();
    for (const pool of disrupted.values()) counts.set(pool, (counts.get(pool) ?? 0) + 1);
    for (const [name, count] of counts) {
      if (count > (state.pools[name].maxDisrupted ?? 0)) {
        state.pools[name].maxDisrupted = count;
        disruptionSeen = true;
      }
    }
  };
  const noteDisruption = (type: string, node: KubeObject) => {
    const pool = poolOfNode(node);
    if (type !== 'DELETED' && pool && following.has(pool) && isNodeDisruptingBudget(node)) disrupted.set(node.metadata.name, pool);
    else disrupted.delete(node.metadata.name);
    // A (re)list replays the current set without the DELETEDs it missed: measured at the tick, once stale nodes are gone.
    if (type !== 'SYNCED') measureDisruption();
  };
  // Remembered past deletion: a FailedDraining event may be read after its node is gone.
  const nodePools = new Map<string, string>();
  const claimNodes = new Map<string, { pool?: string; node?: string }>();
  const events: KubeObject[] = [];
  const shelfKey = `${ctx.data.jobId}:${ctx.step.id}:${state.startedAt}`;
  const { caches } = await watches.shelf.open(
    shelfKey,
    kube,
    {
      claims: { resource: 'nodeclaims', onObject: (_t, claim) => claimNodes.set(claim.metadata.name, { pool: poolOfClaim(claim), node: nodeNameOfClaim(claim) }) },
      nodes: {
        resource: 'nodes',
        options: { labelSelector: 'karpenter.sh/nodepool' },
        onObject: (type, node) => {
          nodePools.set(node.metadata.name, poolOfNode(node) ?? '');
          noteDisruption(type, node);
        },
      },
      pods: { resource: 'pods' },
      pdbs: { resource: 'poddisruptionbudgets' },
      events: { resource: 'events', options: { namespace: 'default' }, onObject: (type, event) => type !== 'DELETED' && events.push(event) },
    },
    { onChange: () => signal.notify(), onError: (error) => ctx.logger.warn({ err: error }, 'Karpenter drift watch error; it reconnects by itself') },
  );
  const lookup = {
    pools: following,
    since: state.startedAt - 1_000,
    poolOfNode: (name: string) => nodePools.get(name) || undefined,
    poolOfClaim: (name: string) => claimNodes.get(name)?.pool,
    nodeOfClaim: (name: string) => claimNodes.get(name)?.node,
  };
  const blocked = createBlockedNodesMessages(ctx, state, {
    lookup,
    node: (name) => caches.nodes.get(name),
    pods: () => caches.pods.items(),
    pdbs: () => caches.pdbs.items(),
    shown: options.blockedShown,
  });
  let keep = false;

  try {
    for (;;) {
      await signal.wait(tickMs);
      const now = ctx.clock.now();
      // Re-read from the cache: a node deleted while the watch was re-listing never sent its DELETED.
      for (const name of [...disrupted.keys()]) if (!caches.nodes.get(name)) disrupted.delete(name);
      measureDisruption();
      // One copy of each cache per tick (a 500-node cluster holds thousands of pods), and the pods only when a pool verifies.
      const [claims, nodes] = [caches.claims.items(), caches.nodes.items()];
      let pods: KubeObject[] | undefined;
      const podsNow = () => (pods ??= caches.pods.items());
      const counts = Object.entries(state.pools).map(([name, pool]) => ({ name, pool, counts: countsOf(name, pool, claims, nodes, ctx.step.to, now, options) }));
      let changed = disruptionSeen;
      disruptionSeen = false;
      for (const { name, pool, counts: c } of counts) changed = (await reportPool(ctx, name, pool, c, now, options, nodes, podsNow)) || changed;
      await reportProgress(ctx, counts.map((entry) => entry.counts));
      for (const event of events.splice(0)) changed = (await blocked.take(event)) || changed;
      changed = (await blocked.show()) || changed;
      for (const { name, pool } of counts) if (pool.verification) changed = (await blocked.finish(name)) || changed;
      if (changed) await saveKarpenterState(ctx, state);
      if (counts.every(({ pool }) => pool.verification)) return { end: 'complete' };
      // Controls before the deadline: a pause must set the budget to "0" now, not after the job parks.
      const controls = await ctx.controls();
      // An abort ends the blocked-nodes messages in karpenter-step.ts, which sees it between windows too.
      if (controls.abort) return { end: 'aborted', controls };
      keep = true;
      if (controls.paused) return { end: 'paused', controls };
      if (now >= deadline) return { end: 'window' };
      keep = false;
    }
  } finally {
    if (keep && watches.lingerMs > 0) watches.shelf.shelve(shelfKey, caches, watches.lingerMs);
    else caches.stopAll();
  }
}

function countsOf(name: string, pool: PoolPlan, claims: KubeObject[], nodes: KubeObject[], target: string, now: number, options: FollowOptions): DriftCounts {
  return countDrift({ pool: name, claims, nodes, oldClaims: pool.oldClaims, targetAmis: pool.targetAmis, target, now, readyTimeoutMs: options.readyTimeoutMs });
}

/** Updates one pool's record from its counts and posts what is news. Returns whether the record changed. */
async function reportPool(
  ctx: StepContext, name: string, pool: PoolPlan, counts: DriftCounts, now: number, options: FollowOptions, nodes: KubeObject[], pods: () => KubeObject[],
): Promise<boolean> {
  if (pool.verification) return false;
  let changed = false;
  const at = now;
  if (counts.oldClaims.length !== pool.oldClaims.length) {
    pool.oldClaims = counts.oldClaims;
    changed = true;
  }
  if (pool.replaced !== counts.replaced || pool.lastProgressAt === undefined) {
    Object.assign(pool, { replaced: counts.replaced, lastProgressAt: now });
    changed = true;
  }
  if (counts.drifted > 0) {
    await ctx.emit(`drifted:${name}`, { kind: 'progress', at, step: ctx.step.id, text: `Karpenter marked ${counts.drifted} NodeClaim(s) of NodePool ${name} drifted; replacing them within the budget.` });
  }
  for (const late of counts.notReady) {
    await ctx.emit(`not-ready:${late.claim}`, {
      kind: 'note', at, level: 'warning',
      text: `NodeClaim ${late.claim}${late.node ? ` (node ${late.node})` : ''} of NodePool ${name} is not Ready ${Math.round(late.ageMs / 60_000)} minutes after launch (${late.pending.join(', ')}). Karpenter removes a replacement that never registers and tries again; check the instance's console output and the node's kubelet.`,
    });
  }
  if (!counts.complete && now - (pool.lastProgressAt ?? now) >= options.stallMs) {
    await ctx.emit(`stalled:${name}:${counts.replaced}`, {
      kind: 'note', at, level: 'warning',
      text: `NodePool ${name}: no NodeClaim replaced for ${Math.round((now - pool.lastProgressAt!) / 60_000)} minutes (${counts.replaced}/${counts.total}, ${counts.inFlight} in flight, ${counts.queued} drifted and waiting). The job keeps following; see the blocked-disruption notices above, or Abort to put the original budget back.`,
    });
  }
  if (!counts.complete) return changed;
  pool.claimsCompleteAt ??= now;
  const verification = verifyPool({ pool: name, nodes, pods: pods(), target: ctx.step.to });
  if (isVerified(verification) || now - pool.claimsCompleteAt >= options.podSettleMs) {
    pool.verification = verification;
    const text = `NodePool ${name}: ${counts.replaced}/${counts.total} NodeClaims replaced; ${describeVerification(verification, ctx.step.to)}.`;
    await ctx.emit(`verified:${name}`, isVerified(verification) ? { kind: 'progress', at, step: ctx.step.id, text } : { kind: 'note', at, level: 'warning', text });
  }
  return true;
}

async function reportProgress(ctx: StepContext, counts: DriftCounts[]): Promise<void> {
  const text = formatDriftProgress(counts);
  await ctx.setProgress(text);
  const total = counts.reduce((sum, c) => sum + c.total, 0);
  const replaced = counts.reduce((sum, c) => sum + c.replaced, 0);
  // One post per tenth of the rollout: 2 nodes post twice, 1000 nodes ten times.
  const tenth = total > 0 ? Math.floor((replaced * 10) / total) : 0;
  if (tenth > 0) await ctx.emit(`replaced:${tenth}`, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: `${text}.` });
}
