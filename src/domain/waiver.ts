import picomatch from 'picomatch';

/**
 * A waiver: a team's decision that one finding may stand for a while, with who decided, why and until when. Two
 * sources: clusters.yaml `waivers:` (reviewed in Git, so approved by whoever merged it) and Slack (asked for with
 * Waive…, confirmed by an approver, kept in Redis with its audit). A waiver matches a finding by its code and a
 * glob over the finding's resources (`deployment/orders/*`; `*` stops at `/`, `**` does not). Only an `active`
 * waiver not yet expired waives anything; expiry is judged on the clock of the read (the simulator's in tests).
 */
export const MAX_WAIVER_DAYS = 90;
export const MIN_WAIVER_REASON = 10;

export type WaiverState = 'pending' | 'active' | 'rejected' | 'revoked';

export interface Waiver {
  id: string;
  cluster: string;
  code: string;
  resource: string;
  reason: string;
  /** Epoch ms; the waiver stops at this instant. */
  expiresAt: number;
  requestedBy: string;
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

export function resourceGlobMatches(glob: string, resource: string): boolean {
  // Resources such as "subnet/subnet-0ab (us-west-2a, 40 free)" hold glob syntax themselves: equal text always matches.
  return glob === resource || picomatch.isMatch(resource, glob, { dot: true });
}

export function isInForce(waiver: Waiver, now: number): boolean {
  return waiver.state === 'active' && now < waiver.expiresAt;
}

export function waiverMatches(waiver: Pick<Waiver, 'code' | 'resource'>, finding: { code: string; resources: readonly string[] }): boolean {
  return waiver.code === finding.code && finding.resources.some((resource) => resourceGlobMatches(waiver.resource, resource));
}
