import type { ScenarioFaults } from '../scenario/scenario-schema.js';

/**
 * Faults the simulator injects on demand (scenario `faults:` or POST /_sim/faults): latency and throttling / 5xx
 * on the AWS APIs, a control-plane update that ends Failed, nodes that never become Ready.
 */
export interface FaultState {
  latencyMs: number;
  throttleRate: number;
  errorRate: number;
  /** Consumed by the next matching UpdateClusterVersion. */
  failNextClusterUpdate?: { cluster?: string; errorCode: string; errorMessage?: string };
  nodesNeverReady: boolean;
  /** How many calls were answered with an injected error (for tests). */
  injected: { throttled: number; errors: number };
}

export function createFaultState(initial: ScenarioFaults = {}): FaultState {
  const state: FaultState = {
    latencyMs: 0,
    throttleRate: 0,
    errorRate: 0,
    nodesNeverReady: false,
    injected: { throttled: 0, errors: 0 },
  };
  applyFaults(state, initial);
  return state;
}

/** Merges a partial fault description into the state; `null` clears a field. */
export function applyFaults(state: FaultState, change: Partial<Record<keyof ScenarioFaults, unknown>>): void {
  if ('latencyMs' in change) state.latencyMs = Number(change.latencyMs ?? 0);
  if ('throttleRate' in change) state.throttleRate = Number(change.throttleRate ?? 0);
  if ('errorRate' in change) state.errorRate = Number(change.errorRate ?? 0);
  if ('nodesNeverReady' in change) state.nodesNeverReady = Boolean(change.nodesNeverReady);
  if ('failNextClusterUpdate' in change) {
    const value = change.failNextClusterUpdate as FaultState['failNextClusterUpdate'] | null | undefined;
    state.failNextClusterUpdate = value ? { errorCode: value.errorCode ?? 'Unknown', cluster: value.cluster, errorMessage: value.errorMessage } : undefined;
  }
}

export type InjectedFault = { kind: 'throttle' } | { kind: 'error'; status: 500 | 503 } | undefined;

/** Decides whether this AWS call gets an injected failure (random source injected for tests). */
export function pickFault(state: FaultState, random: () => number): InjectedFault {
  if (state.throttleRate > 0 && random() < state.throttleRate) {
    state.injected.throttled++;
    return { kind: 'throttle' };
  }
  if (state.errorRate > 0 && random() < state.errorRate) {
    state.injected.errors++;
    return { kind: 'error', status: random() < 0.5 ? 500 : 503 };
  }
  return undefined;
}

export function describeFaults(state: FaultState): Record<string, unknown> {
  return { ...state, injected: { ...state.injected } };
}
