import type { Waiver, WaiverRequest } from './waiver.js';

export type { WaiverRequest } from './waiver.js';

/**
 * Waivers asked for and approved in Slack, in Redis with their audit: one JSON record per waiver, an index per
 * cluster, and an append-only audit list per waiver (requested, approved, rejected, revoked — who and when).
 * The port; the Redis adapter is src/waivers/store/redis-waiver-store.ts, where transitions are compare-and-set in Lua, so two
 * approvers clicking at once approve once, and a click on a waiver that was meanwhile rejected or revoked changes
 * nothing and says what happened instead.
 */
export interface WaiverAuditEntry {
  at: number;
  by: string;
  action: 'requested' | 'approved' | 'rejected' | 'revoked';
  note?: string;
}

export type WaiverTransition =
  | { outcome: 'done'; waiver: Waiver }
  | { outcome: 'not-allowed'; waiver: Waiver }
  | { outcome: 'unknown' };

export interface WaiverStore {
  request(request: WaiverRequest, now: number): Promise<Waiver>;
  /**
   * Removes a pending request as if it had never been made (its record, audit and index entry): for a request whose
   * card Slack refused, so no approver could ever see it. False when it was not pending (or not there).
   */
  withdraw(id: string): Promise<boolean>;
  get(id: string): Promise<Waiver | undefined>;
  /** Every waiver of a cluster (or of every cluster), newest first, whatever its state. */
  list(cluster?: string): Promise<Waiver[]>;
  approve(id: string, by: string, now: number): Promise<WaiverTransition>;
  reject(id: string, by: string, now: number): Promise<WaiverTransition>;
  revoke(id: string, by: string, now: number): Promise<WaiverTransition>;
  audit(id: string): Promise<WaiverAuditEntry[]>;
}
