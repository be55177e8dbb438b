import type { SimKubeStore } from '../kube/kube-store.js';
import type { SimClock } from '../sim-clock.js';
import { minorOf } from './ami-resolution.js';
import { launchablePools, readClusterView, type ClusterView } from './cluster-view.js';
import { createDisruptionQueue } from './disruption/disruption-queue.js';
import { decideDriftDisruptions, type DisruptionDecision } from './disruption/drift-disruption.js';
import { nextBudgetChange } from './disruption/disruption-budget.js';
import { decideEmptiness, nextEmptinessDue } from './disruption/emptiness.js';
import { markDrift } from './disruption/drift-marking.js';
import { createKarpenterTelemetry, type KarpenterTelemetry, type LogSink } from './karpenter-telemetry.js';
import { createTerminator } from './nodeclaims/node-termination.js';
import { collectGarbage, releaseStaleDisruptions } from './nodeclaims/nodeclaim-garbage-collection.js';
import { createNodeClaimLauncher, DEFAULT_LAUNCH_TIMINGS, type LaunchTimings } from './nodeclaims/nodeclaim-lifecycle.js';
import { reconcileNodeClassStatus } from './nodeclass-status.js';
import { reconcileNodePoolStatus } from './nodepool-status.js';
import { isProvisionable } from './nodeclaims/pod-facts.js';
import { provision } from './nodeclaims/provisioner.js';
import { createQuietPasses } from './disruption/quiet-passes.js';
import { seededRandom } from './seeded-random.js';

/**
 * The simulated Karpenter for one cluster. A pass every 10 sim-seconds (Karpenter's disruption polling period)
 * refreshes EC2NodeClass AMIs, marks drift, keeps NodePool status, decides disruptions (Emptiness, then Drift)
 * within budgets and provisions for pending pods; a 1-second loop runs only while replacements or terminations
 * are in progress; pod events trigger a provisioning batch after 1 s, like Karpenter's batcher. Every decision
 * re-reads the store, so a budget set to "0" mid-rollout stops new disruptions at the next pass while in-flight
 * ones finish. A pass that would only repeat the last one, which changed nothing, is skipped (quiet-passes.ts).
 */
export interface KarpenterControllerOptions {
  store: SimKubeStore;
  clock: SimClock;
  region: string;
  /** The control plane's Kubernetes version ("1.30" or a gitVersion); aliases like al2023@latest follow it. */
  clusterVersion: () => string;
  log?: LogSink;
  /** Random source for names, zones and timings; defaults to one seeded from the cluster name (reproducible). */
  random?: () => number;
  timings?: Partial<LaunchTimings>;
}

const PASS_INTERVAL_MS = 10_000;
const FAST_INTERVAL_MS = 1_000;
const BATCH_IDLE_MS = 1_000;
// Karpenter's EC2NodeClass AMI reconciler requeues every 5 minutes; spec changes are picked up at once.
const AMI_REFRESH_MS = 5 * 60_000;

export function startKarpenterController(opts: KarpenterControllerOptions): () => void {
  const { store, clock, region } = opts;
  const random = opts.random ?? seededRandom(`karpenter/${store.clusterName}`);
  const passes = createQuietPasses({ version: opts.clusterVersion });
  // Passes count their log lines and deduplicated events (quiet-passes.ts). Only a real sink is wrapped: without
  // one, telemetry writes nothing and draws no random numbers for log lines, and wrapping would change that.
  const sink = opts.log;
  const log: LogSink | undefined = sink && ((line) => {
    passes.logged();
    sink(line);
  });
  const baseTelemetry = createKarpenterTelemetry({ store, clock, random, log });
  const telemetry: KarpenterTelemetry = {
    ...baseTelemetry,
    event(object, reason, message, options) {
      const repeatAt = baseTelemetry.event(object, reason, message, options);
      passes.noteRepeat(repeatAt);
      return repeatAt;
    },
  };
  const clusterMinor = () => minorOf(opts.clusterVersion());
  const launcher = createNodeClaimLauncher({
    store, clock, region, random, telemetry, clusterMinor, timings: { ...DEFAULT_LAUNCH_TIMINGS, ...(opts.timings ?? {}) },
  });
  const queue = createDisruptionQueue({ store, clock, telemetry, launcher, random });
  const terminator = createTerminator({ store, clock, telemetry });
  const amiResolvedAt = new Map<string, { spec: string; at: number }>();
  const podActivity = new Map<string, number>();
  let stopped = false;
  const cancels: { pass?: () => void; fast?: () => void; batch?: () => void } = {};

  const guarded = (what: string, work: () => void) => {
    if (stopped) return;
    try {
      work();
    } catch (error) {
      telemetry.error(`${what} failed`, 'karpenter', { error: (error as Error).message });
    }
  };

  // After a refresh every node class is current until the store changes or its 5 minutes are up.
  let refreshed: { rv: string; until: number } | undefined;
  function refreshNodeClasses(now: number): void {
    if (refreshed && refreshed.rv === store.resourceVersion() && now < refreshed.until) return;
    let until = Infinity;
    for (const nodeClass of store.list('ec2nodeclasses')) {
      const spec = JSON.stringify(nodeClass.spec ?? {});
      const last = amiResolvedAt.get(nodeClass.metadata.name);
      if (last && last.spec === spec && now - last.at < AMI_REFRESH_MS && nodeClass.status?.amis) {
        until = Math.min(until, last.at + AMI_REFRESH_MS);
        continue;
      }
      amiResolvedAt.set(nodeClass.metadata.name, { spec, at: now });
      until = Math.min(until, now + AMI_REFRESH_MS);
      reconcileNodeClassStatus(store, nodeClass, clusterMinor(), now);
    }
    refreshed = { rv: store.resourceVersion(), until };
  }

  /** Returns true while disruptions or terminations are in progress. */
  function progress(): boolean {
    const busy = [queue.reconcile(), terminator.reconcile()].some(Boolean);
    if (busy) armFast();
    return busy;
  }

  function armFast(): void {
    if (cancels.fast || stopped) return;
    cancels.fast = clock.after(FAST_INTERVAL_MS, () => {
      cancels.fast = undefined;
      guarded('progressing disruptions', progress);
    });
  }

  // Reading the store clones every object; within a pass, re-read only after something was written.
  let cached: { rv: string; now: number; view: ClusterView } | undefined;
  function currentView(): ClusterView {
    const rv = store.resourceVersion();
    const now = clock.now();
    if (!cached || cached.rv !== rv || cached.now !== now) cached = { rv, now, view: readClusterView(store, now) };
    return cached.view;
  }

  function provisionNow(): void {
    const view = currentView();
    provision({ view, pools: launchablePools(view, region), launcher, telemetry });
  }

  function pass(): void {
    const now = clock.now();
    // The AMI refresh reads only the node classes, so it runs in every pass; if it writes, nothing is skipped.
    refreshNodeClasses(now);
    if (passes.canSkip(now)) return;
    passes.begin();
    collectGarbage(store, currentView(), telemetry);
    const busy = progress();
    releaseStaleDisruptions(store, currentView(), queue.marked());
    markDrift(store, currentView());
    let view = currentView();
    for (const nodePool of view.nodePools) reconcileNodePoolStatus(store, nodePool, view);
    launcher.adopt(view.managed.map((m) => m.claim));
    view = currentView();
    const pools = launchablePools(view, region);
    // Karpenter's method order: Emptiness, then Drift, each seeing the commands the previous one started.
    const emptinessInput = { view, marked: queue.marked(), protectedClaims: queue.replacements(), lastPodActivity: (node: string) => podActivity.get(node) };
    act(decideEmptiness(emptinessInput));
    act(decideDriftDisruptions({ view: currentView(), pools, marked: queue.marked() }));
    provisionNow();
    passes.end({
      inProgress: busy || queue.marked().size > 0 || launcher.busy(),
      // Asked only of a quiet pass, whose view is still the store's current state.
      recheckAt: () => Math.min(nextEmptinessDue(emptinessInput), ...view.nodePools.map((pool) => nextBudgetChange(pool, now))),
    });
  }

  function act(decision: DisruptionDecision): void {
    for (const notice of decision.blocked) {
      telemetry.event(notice.object, 'DisruptionBlocked', notice.message, { dedupeMs: 60_000 });
    }
    for (const command of decision.commands) queue.start(command);
    if (decision.commands.length > 0) armFast();
  }

  function armPass(): void {
    cancels.pass = clock.after(PASS_INTERVAL_MS, () => {
      guarded('disruption pass', pass);
      if (!stopped) armPass();
    });
  }

  const unsubscribe = store.subscribe((event) => {
    if (stopped) return;
    passes.storeChanged(event.resource);
    // When pods last came or went per node: how long a node has been empty, for WhenEmpty consolidation.
    if (event.resource === 'pods' && event.object.spec?.nodeName) podActivity.set(event.object.spec.nodeName, clock.now());
    if (event.resource === 'pods' && event.type !== 'DELETED' && isProvisionable(event.object) && !cancels.batch) {
      cancels.batch = clock.after(BATCH_IDLE_MS, () => {
        cancels.batch = undefined;
        guarded('provisioning', provisionNow);
      });
    }
    if (event.resource === 'nodeclaims' && event.type === 'MODIFIED') armFast();
  });

  // The first pass runs at once so a scenario's node classes have their AMIs before anything looks at them.
  guarded('disruption pass', pass);
  armPass();

  return () => {
    stopped = true;
    unsubscribe();
    cancels.pass?.();
    cancels.fast?.();
    cancels.batch?.();
    launcher.stop();
  };
}
