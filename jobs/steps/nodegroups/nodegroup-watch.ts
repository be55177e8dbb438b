import type { Update } from '@aws-sdk/client-eks';
import type { KubeObject } from '../../../src/ports/kube-port.js';
import { createChangeSignal, startWatchCaches } from '../../engine/watch-cache.js';
import {
  countRollout,
  describeRollout,
  isRolledOut,
  nodesOfGroup,
  NODEGROUP_LABEL,
  oldNodesOf,
  podsByNode,
  type RolloutCounts,
} from '../../../src/planning/nodegroup-rollout.js';
import type { StepContext } from '../../engine/step-context.js';
import { mention } from '../../../src/report/format-text.js';

/**
 * A managed node group's progress as Kubernetes tells it, from watches (never by listing in a loop): the Nodes of
 * the groups being followed and the pods on them, kept by watch caches that list first and then follow events, so
 * a step resumed on another worker re-syncs from the first list. The AWS side (DescribeUpdate, DescribeNodegroup)
 * is still read at the engine's bounded poll interval; between two reads the step wakes on every node or pod
 * change and re-reports.
 */
export interface NodegroupWatch {
  nodes(group: string): KubeObject[];
  /** Evictable pods (no DaemonSet, mirror or finished pods) by node name. */
  pods(): Map<string, KubeObject[]>;
  /** Resolves at the next change of a watched node or pod, or after `ms`. */
  changed(ms: number): Promise<void>;
  stop(): void;
}

/**
 * How long the step waits, after EKS reports a node-group update (or a green group) done, for every node of the
 * group to be at the target and Ready — the Node objects of terminated instances can outlive the update by a
 * little. Past this, it warns and carries on (verify then fails on the nodes still behind).
 */
export const NODEGROUP_SETTLE = { timeoutMs: 10 * 60_000 };

export async function startNodegroupWatch(ctx: StepContext, groups: string[]): Promise<NodegroupWatch> {
  const kube = await ctx.kube();
  const signal = createChangeSignal((ms) => ctx.sleep(ms));
  let byNode: Map<string, KubeObject[]> | undefined;
  const caches = await startWatchCaches(
    kube,
    {
      nodes: { resource: 'nodes', options: { labelSelector: `${NODEGROUP_LABEL} in (${groups.join(',')})` } },
      pods: { resource: 'pods' },
    },
    {
      onChange: () => {
        byNode = undefined;
        signal.notify();
      },
      onError: (error) => ctx.logger.warn({ err: error, nodegroups: groups }, 'node-group watch error; it reconnects by itself'),
    },
  );
  return {
    nodes: (group) => nodesOfGroup(caches.nodes.items(), group),
    pods: () => (byNode ??= podsByNode(caches.pods.items())),
    changed: (ms) => signal.wait(Math.max(0, ms)),
    stop: () => caches.stopAll(),
  };
}

/** A watch started on first use (a group that needs no update never lists the cluster's pods), stopped once. */
export function lazyNodegroupWatch(ctx: StepContext, groups: string[]) {
  let started: Promise<NodegroupWatch> | undefined;
  return {
    get: () => (started ??= startNodegroupWatch(ctx, groups)),
    stop: () => void started?.then((watch) => watch.stop(), () => undefined),
  };
}

/**
 * Posts a group's rollout: the status card's line on every change ("Node group demo-ng: 2/2 nodes at 1.31 (1 old
 * node draining)"), and a bounded number of thread posts under `key()` — once when the new nodes are all Ready,
 * once per tenth of the old nodes gone — so a re-run posts none twice and a 1000-node group posts about ten.
 */
export function createRolloutReporter(ctx: StepContext, watch: () => Promise<NodegroupWatch>, spec: { group: string; key: () => string; desired: () => number }) {
  let oldSeen = { key: '', count: 0 };
  return async function report(): Promise<RolloutCounts> {
    const { group } = spec;
    const key = spec.key();
    const desired = spec.desired();
    const to = ctx.step.to;
    const nodes = await watch();
    const counts = countRollout(nodes.nodes(group), nodes.pods(), to, desired);
    const text = describeRollout(group, to, counts);
    await ctx.setProgress(text);
    const old = oldNodesOf(counts);
    // The old nodes seen at most, per attempt: "1/2 old nodes gone" counts against it.
    oldSeen = { key, count: oldSeen.key === key ? Math.max(oldSeen.count, old) : old };
    const at = ctx.clock.now();
    if (desired > 0 && counts.readyAtTarget >= desired && old > 0) {
      await ctx.emit(`${key}:new-ready`, { kind: 'progress', at, step: ctx.step.id, text: `${text}: the new nodes are Ready; the old ones are cordoned and drained next.` });
    }
    const tenth = oldSeen.count > 0 ? Math.floor(((oldSeen.count - old) / oldSeen.count) * 10) : 0;
    if (tenth >= 1 && tenth <= 9) {
      await ctx.emit(`${key}:old-gone:${tenth}`, { kind: 'progress', at, step: ctx.step.id, text: `${text}; ${oldSeen.count - old}/${oldSeen.count} old nodes gone.` });
    }
    return counts;
  };
}

/**
 * Follows a node-group update: DescribeUpdate once per poll interval (AWS cannot pause or stop it, so a Pause or
 * Abort meanwhile is acknowledged once and honoured after it ends), node progress on every watch event in between.
 */
export async function followNodegroupUpdate(
  ctx: StepContext,
  watch: NodegroupWatch,
  options: { updateId: string; group: string; label: string; report: () => Promise<unknown> },
): Promise<Update> {
  const announced = { abort: false, pause: false };
  for (;;) {
    const update = await ctx.eks.describeUpdate(ctx.data.cluster, options.updateId, { nodegroupName: options.group });
    if (update.status !== 'InProgress') return update;
    const controls = await ctx.controls();
    if (controls.abort && !announced.abort) {
      announced.abort = true;
      await ctx.emit(`abort-waits:${options.updateId}`, {
        kind: 'note', at: ctx.clock.now(), level: 'warning',
        text: `Abort requested by ${mention(controls.abort.by)}. AWS cannot stop the ${options.label} (${options.updateId}); the job waits for it to end, then stops.`,
      });
    }
    if (controls.paused && !announced.pause) {
      announced.pause = true;
      await ctx.emit(`pause-waits:${options.updateId}:${controls.pauseSeq}`, {
        kind: 'note', at: ctx.clock.now(), level: 'info',
        text: `Pause requested by ${mention(controls.pausedBy ?? 'someone')}. AWS cannot pause the ${options.label} (${options.updateId}); it will finish, then the job waits.`,
      });
    }
    const nextPoll = ctx.clock.now() + ctx.pollIntervalMs;
    do {
      await options.report();
      await watch.changed(nextPoll - ctx.clock.now());
    } while (ctx.clock.now() < nextPoll);
  }
}

export type SettleResult = { settled: true; counts: RolloutCounts } | { settled: false; counts: RolloutCounts; why: 'timeout' | 'aborted' };

/**
 * Waits, on the watch, until every node of the group is at the target and Ready, until `deadline` (kept in job.data
 * by the caller, so a re-run does not restart the clock), or until the job is aborted (checked once per poll
 * interval). Posts the end of the rollout once.
 */
export async function waitUntilRolledOut(
  ctx: StepContext,
  watch: NodegroupWatch,
  options: { group: string; key: string; deadline: number; report: () => Promise<RolloutCounts> },
): Promise<SettleResult> {
  let nextControls = 0;
  for (;;) {
    const counts = await options.report();
    const now = ctx.clock.now();
    if (isRolledOut(counts)) {
      await ctx.emit(`${options.key}:rolled-out`, {
        kind: 'progress', at: now, step: ctx.step.id,
        text: `Node group ${options.group}: ${counts.readyAtTarget}/${counts.readyAtTarget} ${counts.readyAtTarget === 1 ? 'node' : 'nodes'} at ${ctx.step.to} and Ready; no old nodes left.`,
      });
      return { settled: true, counts };
    }
    if (now >= options.deadline) return { settled: false, counts, why: 'timeout' };
    if (now >= nextControls) {
      if ((await ctx.controls()).abort) return { settled: false, counts, why: 'aborted' };
      nextControls = now + ctx.pollIntervalMs;
    }
    await watch.changed(Math.min(options.deadline, nextControls) - ctx.clock.now());
  }
}
