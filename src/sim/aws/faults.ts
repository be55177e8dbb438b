import type { AwsService } from './aws-service.js';
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
  /**
   * Answers lost after the action was done, per operation ("TerminateInstanceInAutoScalingGroup": 1): the next such
   * call that changes the world is carried out and its connection then closed without a response, as a network that
   * drops the answer would; the client sees a reset (the SDK retries it as a transient error). Consumed per call.
   */
  dropAnswers: Record<string, number>;
  /** Per-service rates that replace throttleRate / errorRate for that service's calls. */
  services: Partial<Record<AwsService, { throttleRate?: number; errorRate?: number }>>;
  /** How many calls were answered with an injected error (for tests). */
  injected: { throttled: number; errors: number; droppedAnswers: string[] };
}

export function createFaultState(initial: ScenarioFaults = {}): FaultState {
  const state: FaultState = {
    latencyMs: 0,
    throttleRate: 0,
    errorRate: 0,
    nodesNeverReady: false,
    dropAnswers: {},
    services: {},
    injected: { throttled: 0, errors: 0, droppedAnswers: [] },
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
  if ('dropAnswers' in change) state.dropAnswers = { ...((change.dropAnswers ?? {}) as Record<string, number>) };
  if ('services' in change) state.services = { ...((change.services ?? {}) as FaultState['services']) };
  if ('failNextClusterUpdate' in change) {
    const value = change.failNextClusterUpdate as FaultState['failNextClusterUpdate'] | null | undefined;
    state.failNextClusterUpdate = value ? { errorCode: value.errorCode ?? 'Unknown', cluster: value.cluster, errorMessage: value.errorMessage } : undefined;
  }
}

export type InjectedFault = { kind: 'throttle' } | { kind: 'error'; status: 500 | 503 } | undefined;

/** Decides whether this AWS call gets an injected failure (random source injected for tests). */
export function pickFault(state: FaultState, random: () => number, service?: AwsService): InjectedFault {
  const own = service ? state.services[service] : undefined;
  const throttleRate = own?.throttleRate ?? state.throttleRate;
  const errorRate = own?.errorRate ?? state.errorRate;
  if (throttleRate > 0 && random() < throttleRate) {
    state.injected.throttled++;
    return { kind: 'throttle' };
  }
  if (errorRate > 0 && random() < errorRate) {
    state.injected.errors++;
    return { kind: 'error', status: random() < 0.5 ? 500 : 503 };
  }
  return undefined;
}

/** Whether the answer to this call (which changed the world) is to be lost; counts it when so. */
export function takeDroppedAnswer(state: FaultState, operation: string): boolean {
  const left = state.dropAnswers[operation] ?? 0;
  if (left <= 0) return false;
  state.dropAnswers[operation] = left - 1;
  state.injected.droppedAnswers.push(operation);
  return true;
}

export function describeFaults(state: FaultState): Record<string, unknown> {
  return { ...state, dropAnswers: { ...state.dropAnswers }, services: { ...state.services }, injected: { ...state.injected, droppedAnswers: [...state.injected.droppedAnswers] } };
}
