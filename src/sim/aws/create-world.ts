import { randomUUID } from 'node:crypto';
import { startKarpenterController } from '../karpenter/index.js';
import { createSimKubeStore, startKubeControllers } from '../kube/index.js';
import type { SimClock } from '../sim-clock.js';
import { resolveStrictness, type SimStrictness } from '../strictness.js';
import type { Scenario } from '../scenario/scenario-schema.js';
import { startAutoModeController } from './eks/auto-mode.js';
import { buildCluster } from './eks/build-cluster.js';
import { recordWallTimeline } from './wall-timeline.js';
import { recordPdbMinimums } from './pdb-minimums.js';
import { createFaultState } from './faults.js';
import { startFargateController } from './eks/fargate-controller.js';
import { apiServerVersionFor, calendarShiftFor, compareMinors, knownMinors, supportCalendarFor } from './eks/version-catalog.js';
import type { SimCall, SimCluster, SimWorld } from './world-types.js';

/**
 * Builds the simulated account from a validated scenario and starts the controllers that play Kubernetes (S1's
 * scheduler, deployments, PDB status), Fargate and, where the scenario has it, Karpenter. Everything runs on the
 * given clock, so a manual clock gives tests full control of time.
 */
export interface CreateWorldOptions {
  clock: SimClock;
  /** S1's scheduler / deployment / PDB controllers (default true). */
  kubeControllers?: boolean;
  /** The Karpenter controller for clusters whose scenario has `karpenter:` (default true). */
  karpenter?: boolean;
  log?: (line: Record<string, unknown>) => void;
  /** Default: every rule enforced. */
  strictness?: SimStrictness;
  newId?: () => string;
}


/** Seeded PRNG (mulberry32): the same scenario gives the same IPs, instance picks and names every run. */
function seededRandom(seedText: string): () => number {
  let seed = [...seedText].reduce((h, c) => (Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0), 2166136261);
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function createWorld(scenario: Scenario, options: CreateWorldOptions): Promise<SimWorld> {
  const { clock } = options;
  const cleanups: Array<() => void> = [];
  let stopped = false;
  const calls: SimCall[] = [];
  const rejectedCalls: SimCall[] = [];
  const clusters = new Map<string, SimCluster>();
  const calendarShiftMs = calendarShiftFor(scenario.calendarAsOf, clock.now());
  const eks = scenario.eks;

  const world: SimWorld = {
    clock,
    strictness: options.strictness ?? resolveStrictness(),
    scenario,
    accountId: scenario.accountId,
    settings: {
      controlPlaneUpdateMs: eks.controlPlaneUpdateMinutes * 60_000,
      addonUpdateMs: eks.addonUpdateSeconds * 1000,
      nodeReadyMs: eks.nodeReadySeconds * 1000,
      nodegroupCreateMs: eks.nodegroupCreateMinutes * 60_000,
      insightsBlockUpgrades: eks.insightsBlockUpgrades,
    },
    clusters,
    subnets: new Map(),
    launchTemplates: new Map(),
    autoScalingGroups: new Map(),
    images: new Map((scenario.images ?? []).map((image) => [image.id, { ...image, name: image.name ?? `${image.id}-${image.minor}` }])),
    ssmParameters: new Map((scenario.images ?? []).filter((image) => image.parameter).map((image) => [image.parameter!, image.id])),
    pdbMinimums: new Map(),
    cloudWatchAlarms: new Map(),
    timeline: [],
    calls,
    rejectedCalls,
    faults: createFaultState(scenario.faults),
    calendarShiftMs,
    baseUrl: 'http://127.0.0.1',
    kube: (name) => clusters.get(name)?.store,
    cluster: (name) => clusters.get(name),
    offeredVersions() {
      if (eks.versions) return [...eks.versions].sort(compareMinors);
      const now = clock.now();
      return knownMinors().filter((m) => {
        const cal = supportCalendarFor(m, calendarShiftMs);
        return cal.releaseDate <= now && now < cal.endOfExtendedSupport;
      });
    },
    record(call) {
      (call.error ? rejectedCalls : calls).push({ ...call, at: clock.now() });
    },
    random: seededRandom(scenario.name),
    newId: options.newId ?? randomUUID,
    after(simMs, fn) {
      if (stopped) return;
      let cancel: () => void = () => {};
      const wrapped = () => {
        const index = cleanups.indexOf(cancel);
        if (index >= 0) cleanups.splice(index, 1);
        if (!stopped) fn();
      };
      cancel = clock.after(simMs, wrapped);
      cleanups.push(cancel);
    },
    sleep(simMs) {
      return new Promise<void>((resolve) => world.after(simMs, resolve));
    },
    onStop(fn) {
      cleanups.push(fn);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      for (const fn of cleanups.splice(0).reverse()) {
        try {
          fn();
        } catch {
          // A controller failing to stop must not keep the others running.
        }
      }
    },
    log: options.log ?? (() => {}),
  };

  for (const spec of scenario.clusters) {
    const store = createSimKubeStore({ clusterName: spec.name, gitVersion: apiServerVersionFor(spec.version), clock, historyWindowMs: world.strictness.resourceVersionWindowMs, validateCustomResources: world.strictness.validateCustomResources });
    const cluster = buildCluster(world, spec, store);
    clusters.set(spec.name, cluster);
    // Fargate starts before the kube controllers so it sees pods as they are created, before the scheduler could
    // place them on EC2 nodes (EKS's admission webhook has the same head start).
    world.onStop(startFargateController(world, cluster));
    if (options.kubeControllers !== false) world.onStop(startKubeControllers(store, clock));
    world.onStop(recordPdbMinimums(world, spec.name, store));
    world.onStop(recordWallTimeline(world.timeline, spec.name, store, clock));
    if (cluster.computeConfig) world.onStop(startAutoModeController(world, cluster));
    if (spec.karpenter && options.karpenter !== false) {
      world.onStop(
        startKarpenterController({
          store,
          clock,
          region: spec.region,
          clusterVersion: () => cluster.version,
          log: (line) => world.log({ cluster: spec.name, component: 'karpenter', ...line }),
        }),
      );
    }
  }
  return world;
}
