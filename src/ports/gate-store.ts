import type { GateAction, GateModel } from './timeline-event.js';

/**
 * Approval gates, as the engine and the control side use them (implemented over Redis in src/store/gate-store.ts).
 */

export type GateState = 'open' | 'answered' | 'closed';

export interface GateRecord {
  gate: GateModel;
  state: GateState;
  openedAt: number;
  answer?: { action: GateAction | 'timeout'; by: string; at: number; reason?: string };
}

export type GateAnswerOutcome =
  | { outcome: 'accepted' }
  | { outcome: 'already-answered'; by: string; action: GateAction | 'timeout'; at: number }
  | { outcome: 'stale' };

export interface GateStore {
  /** Opens `gate` at its revision unless that revision (or a newer one) exists; true if it opened it now. */
  open(gate: GateModel, openedAt: number): Promise<boolean>;
  read(jobId: string, gateId: string): Promise<GateRecord | undefined>;
  answer(
    jobId: string,
    gateId: string,
    revision: number,
    answer: { action: GateAction | 'timeout'; by: string; at: number; reason?: string },
  ): Promise<GateAnswerOutcome>;
}
