import type { ControlResult } from './upgrade-control.js';

/** One wave of a rollout: the globs given on the command line and the configured clusters they matched. */
export interface RolloutWave {
  globs: string[];
  clusters: string[];
}

export type RolloutState = 'gate' | 'running' | 'soaking' | 'succeeded' | 'failed' | 'aborted';

export interface RolloutRequest {
  to: string;
  waves: RolloutWave[];
  soakMs: number;
  maxParallel: number;
  requestedBy: string;
  channel: string;
}

export interface RolloutSummary extends RolloutRequest {
  id: string;
  state: RolloutState;
  /** Index of the wave in progress (or whose gate is open). */
  wave: number;
  threadTs: string;
  createdAt: number;
  /** cluster → its upgrade job and how it ended (when it has). */
  jobs: Record<string, string>;
  results: Record<string, string>;
  paused: boolean;
  reason?: string;
}

/**
 * Upgrade rollouts in waves (docs/fleet.md). Implemented in jobs/rollout/rollout-engine.ts over BullMQ flows;
 * authorization is the caller's (requesters create, approvers continue, pause, resume and abort).
 */
export interface RolloutControl {
  /** Posts the rollout's parent message, plans the first wave and opens its gate. */
  create(request: RolloutRequest): Promise<RolloutSummary>;
  get(id: string): Promise<RolloutSummary | undefined>;
  list(limit?: number): Promise<RolloutSummary[]>;
  /** The running rollout a cluster belongs to, if any. */
  findActiveFor(cluster: string): Promise<RolloutSummary | undefined>;
  /** Answers the open wave gate: the wave's upgrades start, at most maxParallel at once. */
  continue(id: string, userId: string): Promise<ControlResult>;
  pause(id: string, userId: string): Promise<ControlResult>;
  resume(id: string, userId: string): Promise<ControlResult>;
  abort(id: string, userId: string): Promise<ControlResult>;
}
