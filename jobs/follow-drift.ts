import type { KubeObject, KubePort } from '../src/ports/kube-port.js';
import type { JobControls } from '../src/ports/job-controls.js';
import type { StepContext } from './step-context.js';
import { countDrift, formatDriftProgress, type DriftCounts } from '../src/planning/count-drift.js';
import { blockingPods, describeNotice, noticeOf, type DisruptionNotice } from '../src/planning/disruption-notices.js';
import { isNodeDisrupted, nodeNameOfClaim, poolOfClaim, poolOfNode } from '../src/planning/karpenter-objects.js';
import { saveKarpenterState, type KarpenterStepState, type PoolPlan } from './karpenter-step-state.js';
import { describeVerification, isVerified, verifyPool } from '../src/planning/verify-pool.js';
import { createChangeSignal, startWatchCaches } from './watch-cache.js';

/**
 * Follows the drift of the step's NodePools for one bounded window by watching NodeClaims, Nodes, Pods and
 * Karpenter's Events (never by polling the cluster): counts per pool, the status card's "NodeClaims replaced 3/10",
 * a post per tenth of the rollout, blocked-disruption notices with the blocking pods, replacements that never
 * become Ready, a warning when nothing moves for long. The window ends when every pool is done and verified, when
 * it has run `windowMs`, or when the job is paused or aborted (checked each tick from the job's controls).
 *
 * Why windows: a BullMQ job that holds its worker for the hour a big rollout takes has no checkpoint; returning
 * 'wait' after a few minutes saves the counts in job.data, frees the worker, and the next window's watches re-sync
 * from their first list, so a crash anywhere loses at most one window of reporting and no change.
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
  maxNotices: number;
}

export const DEFAULT_FOLLOW_OPTIONS: FollowOptions = {
  windowMs: 3 * 60_000,
  readyTimeoutMs: 15 * 60_000,
  stallMs: 30 * 60_000,
  podSettleMs: 5 * 60_000,
  maxNotices: 30,
};

export type WindowEnd = { end: 'complete' } | { end: 'window' } | { end: 'paused' | 'aborted'; controls: JobControls };

export async function followDrift(ctx: StepContext, kube: KubePort, state: KarpenterStepState, options: FollowOptions): Promise<WindowEnd> {
  const deadline = ctx.clock.now() + options.windowMs;
  const tickMs = options.tickMs ?? Math.max(20, Math.min(ctx.pollIntervalMs, 5_000));
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  const following = new Set(Object.keys(state.pools));
  // Nodes tainted for disruption right now, by pool: updated on every node event so no overlap goes unseen.
  const disrupted = new Map<string, string>();
  let disruptionSeen = false;
  const noteDisruption = (type: string, node: KubeObject) => {
    const pool = poolOfNode(node);
    if (type !== 'DELETED' && pool && following.has(pool) && isNodeDisrupted(node)) disrupted.set(node.metadata.name, pool);
    else disrupted.delete(node.metadata.name);
    for (const name of following) {
      const count = [...disrupted.values()].filter((p) => p === name).length;
      if (count > (state.pools[name].maxDisrupted ?? 0)) {
        state.pools[name].maxDisrupted = count;
        disruptionSeen = true;
      }
    }
  };
  // Remembered past deletion: a FailedDraining event may be read after its node is gone.
  const nodePools = new Map<string, string>();
  const claimNodes = new Map<string, { pool?: string; node?: string }>();
  const events: KubeObject[] = [];
  const caches = await startWatchCaches(
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

  try {
    for (;;) {
      await signal.wait(tickMs);
      const now = ctx.clock.now();
      // Re-read from the cache: a node deleted while the watch was re-listing never sent its DELETED.
      for (const name of [...disrupted.keys()]) if (!caches.nodes.get(name)) disrupted.delete(name);
      const counts = Object.entries(state.pools).map(([name, pool]) => ({ name, pool, counts: countsOf(name, pool, caches.claims.items(), caches.nodes.items(), ctx.step.to, now, options) }));
      let changed = disruptionSeen;
      disruptionSeen = false;
      for (const { name, pool, counts: c } of counts) changed = (await reportPool(ctx, name, pool, c, now, options, caches.nodes.items(), caches.pods.items())) || changed;
      await reportProgress(ctx, counts.map((entry) => entry.counts));
      for (const event of events.splice(0)) {
        const notice = noticeOf(event, lookup);
        if (notice && (await postNotice(ctx, kube, state, notice, caches.pods.items(), options))) changed = true;
      }
      if (changed) await saveKarpenterState(ctx, state);
      if (counts.every(({ pool }) => pool.verification)) return { end: 'complete' };
      // Controls before the deadline: a pause must set the budget to "0" now, not after the job parks.
      const controls = await ctx.controls();
      if (controls.abort) return { end: 'aborted', controls };
      if (controls.paused) return { end: 'paused', controls };
      if (now >= deadline) return { end: 'window' };
    }
  } finally {
    caches.stopAll();
  }
}

function countsOf(name: string, pool: PoolPlan, claims: KubeObject[], nodes: KubeObject[], target: string, now: number, options: FollowOptions): DriftCounts {
  return countDrift({ pool: name, claims, nodes, oldClaims: pool.oldClaims, targetAmis: pool.targetAmis, target, now, readyTimeoutMs: options.readyTimeoutMs });
}

/** Updates one pool's record from its counts and posts what is news. Returns whether the record changed. */
async function reportPool(
  ctx: StepContext, name: string, pool: PoolPlan, counts: DriftCounts, now: number, options: FollowOptions, nodes: KubeObject[], pods: KubeObject[],
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
  const verification = verifyPool({ pool: name, nodes, pods, target: ctx.step.to });
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

async function postNotice(
  ctx: StepContext, kube: KubePort, state: KarpenterStepState, notice: DisruptionNotice, pods: KubeObject[], options: FollowOptions,
): Promise<boolean> {
  if (state.notices.includes(notice.key)) return false;
  if (state.notices.length >= options.maxNotices) {
    await ctx.emit('notices-capped', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: `More nodes are blocked than this thread shows (${options.maxNotices} notices posted); see \`kubectl get events -n default --field-selector reason=DisruptionBlocked\`.` });
    return false;
  }
  const namespaces = [...new Set(notice.pdbs.map((pdb) => pdb.split('/')[0]))];
  const pdbs = (await Promise.all(namespaces.map((namespace) => kube.list('poddisruptionbudgets', { namespace }).then((list) => list.items).catch(() => [])))).flat();
  await ctx.emit(notice.key, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: describeNotice(notice, blockingPods(notice, pods, pdbs)) });
  state.notices.push(notice.key);
  return true;
}
