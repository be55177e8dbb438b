import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../src/ports/kube-port.js';
import type { StepMessageModel } from '../../../src/ports/timeline-event.js';
import { blockingPods, describeNotice, eventTime, noticeOf, type NoticeLookup } from '../../../src/planning/workloads/disruption-notices.js';
import { describeBlockedOutcome, describeBlockedPool, noteBlocked, pruneBlocked, type BlockedBoard } from '../../../src/planning/workloads/blocked-nodes.js';
import { isNodeDisrupted } from '../../../src/planning/karpenter-objects.js';
import type { KarpenterStepState } from './karpenter-step-state.js';
import type { StepContext } from '../../engine/step-context.js';

/**
 * Karpenter's blocked-disruption notices during one follow window (follow-drift.ts): each notice is recorded once
 * in the timeline (the export keeps every one), and the thread gets ONE message per NodePool, edited in place as
 * nodes get blocked and unblocked — which nodes, by which pods and PDBs, what to do. People reply to it, so it is
 * its own message, not the step's. The boards live in memory: each window rebuilds them from the events its watch
 * lists (Kubernetes keeps events for an hour), so only the counts and the last text shown go to job.data.
 */
export interface BlockedNodesMessages {
  /** Takes one Karpenter event. Returns whether job.data changed. */
  take(event: KubeObject): Promise<boolean>;
  /** Drops the nodes no longer blocked and edits each pool's message if its text changed. Returns whether job.data changed. */
  show(): Promise<boolean>;
  /** The pool's drift is over: the message's last version. Returns whether job.data changed. */
  finish(pool: string): Promise<boolean>;
}

/** The last version of a pool's message, from what job.data holds (also for an abort between two windows). */
export async function endBlockedMessage(ctx: StepContext, state: KarpenterStepState, pool: string, aborted: boolean): Promise<boolean> {
  const entry = state.blocked?.[pool];
  if (!entry || entry.ended) return false;
  const at = ctx.clock.now();
  const summary = describeBlockedOutcome(pool, entry.now ?? 0, entry.ever.length, aborted);
  await ctx.showMessage(`blocked:${pool}`, {
    step: ctx.step.id, title: BLOCKED_TITLE(pool), shows: 'board', startedAt: entry.since, at, state: aborted ? 'aborted' : 'done', durationMs: Math.max(0, at - entry.since), summary,
  });
  entry.ended = true;
  return true;
}

export interface BlockedNodesSources {
  lookup: NoticeLookup;
  /** The node as the nodes watch has it now. */
  node(name: string): KubeObject | undefined;
  pods(): KubeObject[];
  pdbs(): KubeObject[];
  /** How many blocked nodes the message names before "… and N more". */
  shown: number;
}

export const BLOCKED_TITLE = (pool: string) => `Blocked disruptions in NodePool ${pool}`;

export function createBlockedNodesMessages(ctx: StepContext, state: KarpenterStepState, sources: BlockedNodesSources): BlockedNodesMessages {
  const boards = new Map<string, BlockedBoard>();
  const recorded = new Set<string>();
  let newest = 0;
  // Pods by node, built once per batch of notices rather than scanning every pod of the cluster for each notice.
  let podsByNode: Map<string, KubeObject[]> | undefined;
  const podsOn = (node: string) => {
    if (!podsByNode) {
      podsByNode = new Map();
      for (const pod of sources.pods()) {
        const name = pod.spec?.nodeName;
        if (!name) continue;
        const onNode = podsByNode.get(name);
        if (onNode) onNode.push(pod);
        else podsByNode.set(name, [pod]);
      }
    }
    return podsByNode.get(node) ?? [];
  };

  const message = (pool: string, board: BlockedBoard, at: number): StepMessageModel => {
    const entry = state.blocked![pool];
    return { step: ctx.step.id, title: BLOCKED_TITLE(pool), shows: 'board', startedAt: entry.since, at, state: 'running', progress: describeBlockedPool(pool, board, entry.ever.length, sources.shown) };
  };

  return {
    async take(event) {
      const notice = noticeOf(event, sources.lookup);
      if (!notice) return false;
      const at = eventTime(event);
      newest = Math.max(newest, at);
      const pods = blockingPods(notice, notice.node ? podsOn(notice.node) : [], sources.pdbs());
      if (!recorded.has(notice.key)) {
        recorded.add(notice.key);
        await ctx.record(notice.key, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: describeNotice(notice, pods) });
      }
      if (!notice.node) return false;
      const board = boards.get(notice.pool) ?? new Map();
      boards.set(notice.pool, board);
      noteBlocked(board, notice, pods, at);
      state.blocked ??= {};
      const entry = (state.blocked[notice.pool] ??= { ever: [], since: ctx.clock.now() });
      if (entry.ever.includes(notice.node)) return false;
      entry.ever.push(notice.node);
      return true;
    },

    async show() {
      podsByNode = undefined;
      let changed = false;
      for (const [pool, entry] of Object.entries(state.blocked ?? {})) {
        if (entry.ended) continue;
        const board = boards.get(pool) ?? new Map();
        pruneBlocked(board, (name) => {
          const node = sources.node(name);
          return { exists: !!node, disrupting: !!node && (isNodeDisrupted(node) || !!node.metadata.deletionTimestamp) };
        }, newest);
        const next = message(pool, board, ctx.clock.now());
        const shown = createHash('sha1').update(next.progress ?? '').digest('hex').slice(0, 12);
        if (shown === entry.shown) continue;
        await ctx.showMessage(`blocked:${pool}`, next);
        entry.shown = shown;
        entry.now = board.size;
        changed = true;
      }
      return changed;
    },

    async finish(pool) {
      const entry = state.blocked?.[pool];
      if (entry && !entry.ended) entry.now = boards.get(pool)?.size ?? 0;
      return endBlockedMessage(ctx, state, pool, false);
    },
  };
}
