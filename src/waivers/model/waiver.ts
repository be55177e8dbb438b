/**
 * A waiver: a team's decision that one finding may stand for a while, with who decided, why and until when. Two
 * sources: clusters.yaml `waivers:` (reviewed in Git, so approved by whoever merged it) and Slack (asked for with
 * Waive…, confirmed by an approver, kept in Redis with its audit). A waiver matches a finding by its code and a
 * glob over the finding's resources (`deployment/orders/*`; `*` stops at `/`, `**` does not). Only an `active`
 * waiver not yet expired waives anything; expiry is judged on the clock of the read (the simulator's in tests).
 */
export type WaiverState = 'pending' | 'active' | 'rejected' | 'revoked';

/** What someone asks for with Waive…: one finding (code and resource glob) of one cluster, why, until when. */
export interface WaiverRequest {
  cluster: string;
  code: string;
  resource: string;
  reason: string;
  /** Epoch ms; the waiver stops at this instant. */
  expiresAt: number;
  requestedBy: string;
}

/** A waiver is the request it answers, with its id, its state and who decided. */
export interface Waiver extends WaiverRequest {
  id: string;
  requestedAt: number;
  state: WaiverState;
  approvedBy?: string;
  approvedAt?: number;
  /** Who rejected or revoked it, and when. */
  closedBy?: string;
  closedAt?: number;
  source: 'clusters.yaml' | 'slack';
}

/** What a waived finding carries: who waived it, why, until when (ISO). */
export interface WaivedBy {
  by: string;
  reason: string;
  until: string;
  waiverId: string;
}
