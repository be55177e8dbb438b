/**
 * The simulator as a product component (issue 15): a running world made from a scenario object — typically the twin
 * `eks-upgrade snapshot` wrote of a real cluster — at a speed, which the bot's worker upgrades as if it were real
 * and then stops. Nothing else of the simulator is needed for a rehearsal.
 */

import { validateScenario } from '../scenario/load-scenario.js';
import { startSimulator, type SimServer } from '../sim-server.js';
import { calendarAsOfShowing } from '../aws/eks/version-catalog.js';

export interface SimTwin {
  /** Where the twin's AWS APIs listen; each cluster's Kubernetes API is `${url}/k8s/<cluster>`. */
  readonly url: string;
  /** kubeconfig YAML with one context per cluster. */
  kubeconfig(): string;
  /** Simulated epoch milliseconds now (the twin's clock). */
  now(): number;
  /** Simulated seconds per real second from now on. */
  setSpeed(speed: number): void;
  /** Mutating calls the twin received (AWS calls accepted or refused, Kubernetes writes), for one cluster or all. */
  mutatingCalls(cluster?: string): number;
  /** The underlying server, for tests that inspect the world. */
  readonly server: SimServer;
  stop(): Promise<void>;
}

export interface StartTwinOptions {
  /** Simulated seconds per real second (default 600: a 10-minute control-plane update takes one real second). */
  speed?: number;
  port?: number;
  host?: string;
  log?: (line: Record<string, unknown>) => void;
}

/**
 * How long the twin's event loop may be held up before the hold-up stops counting as simulated time (SimClockOptions
 * .loopGapMs): at speed 600, 10 ms is 6 simulated seconds, under half of one of the engine's 15 s polls.
 */
export const TWIN_LOOP_GAP_MS = 10;

/** Validates the scenario (a ScenarioError names the field), builds its world and serves it. */
export async function startTwin(scenario: object, options: StartTwinOptions = {}): Promise<SimTwin> {
  const checked = validateScenario(scenario, 'twin');
  const server = await startSimulator({ scenario: checked, speed: options.speed ?? 600, loopGapMs: TWIN_LOOP_GAP_MS, port: options.port ?? 0, host: options.host ?? '127.0.0.1', log: options.log });
  return {
    url: server.url,
    server,
    kubeconfig: () => server.kubeconfig(),
    now: () => server.clock.now(),
    setSpeed: (speed) => server.clock.setSpeed?.(speed),
    mutatingCalls: (cluster) => countMutatingCalls(server, cluster),
    stop: () => server.close(),
  };
}

/** Mutating AWS calls (accepted and refused) plus Kubernetes writes that reached a simulator, for one cluster or all. */
export function countMutatingCalls(server: SimServer, cluster?: string): number {
  const mine = (c: { cluster?: string }) => cluster === undefined || c.cluster === undefined || c.cluster === cluster;
  return server.world.calls.filter(mine).length + server.world.rejectedCalls.filter((c) => c.service !== 'kubernetes' && mine(c)).length + server.kubeWrites.filter((w) => cluster === undefined || w.cluster === cluster).length;
}

/**
 * The scenario `calendarAsOf` under which the simulator reports `endOfStandardSupport` for `minor` as it was seen
 * at `readAt` (so a twin shows the same support dates and days left as the cluster it copies).
 */
export function calendarAsOfFor(minor: string, endOfStandardSupport: number, readAt: number): string | undefined {
  try {
    return calendarAsOfShowing(minor, endOfStandardSupport, readAt);
  } catch {
    return undefined;
  }
}
