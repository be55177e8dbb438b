import { afterEach } from 'vitest';
import { createWorld } from '../../../src/sim/aws/create-world.js';
import type { SimCluster, SimWorld } from '../../../src/sim/aws/world-types.js';
import { loadScenario } from '../../../src/sim/scenario/load-scenario.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';

/**
 * For unit tests of the simulator's controllers: the world of a scenario on a manual clock (no HTTP), stopped after
 * the test. `advance(ms)` moves simulated time and runs every controller due meanwhile.
 */
export function useWorld(): (scenario?: string | object, options?: { clusters?: number; karpenter?: boolean }) => Promise<TestWorld> {
  const started: SimWorld[] = [];
  afterEach(() => {
    for (const world of started.splice(0)) world.stop();
  });
  return async (scenario = 'demo', options = {}) => {
    const clock = createManualClock(Date.UTC(2026, 10, 1));
    const world = await createWorld(loadScenario(scenario, { clusters: options.clusters }), { clock, karpenter: options.karpenter });
    started.push(world);
    const first = [...world.clusters.values()][0];
    return {
      world,
      clock,
      cluster: (name?: string) => {
        const found = name ? world.cluster(name) : first;
        if (!found) throw new Error(`test world has no cluster ${name}`);
        return found;
      },
      advance: async (ms: number, stepMs = 5_000) => {
        // Step so controllers that chain timers (drain retries, waits) get to run at each stop.
        for (let left = ms; left > 0; left -= stepMs) await clock.advance(Math.min(stepMs, left));
      },
    };
  };
}

export interface TestWorld {
  world: SimWorld;
  clock: ReturnType<typeof createManualClock>;
  cluster(name?: string): SimCluster;
  advance(ms: number, stepMs?: number): Promise<void>;
}
