import type { StepContext } from '../../engine/step-context.js';
import type { PoolBudgetRecord } from '../../../src/planning/workloads/disruption-budget.js';
import type { PoolVerification } from '../../../src/planning/planner/verify-pool.js';

/**
 * What the Karpenter step keeps in job.data (ctx.saveStepState) so a worker that dies anywhere carries on without
 * repeating a change wrongly: each NodePool's original budgets (saved before the first patch), each EC2NodeClass's
 * original terms, the old NodeClaims to count, and how far the drift got.
 */
export interface PoolPlan extends PoolBudgetRecord {
  nodeClass: string;
  /** The images a NodeClaim on the target runs (resolved from SSM). */
  targetAmis: string[];
  /** NodeClaims on an old image (at the start, plus any launched on one since). */
  oldClaims: string[];
  replaced?: number;
  /** The most nodes of the pool seen tainted for disruption at the same time (the budget at work). */
  maxDisrupted?: number;
  /** When the replaced count last moved (for the "no progress" warning). */
  lastProgressAt?: number;
  /** When the last old claim went and every claim was on the target and Ready. */
  claimsCompleteAt?: number;
  verification?: PoolVerification;
}

export interface ClassPlan {
  action: 'pin' | 'follows-version';
  family: string;
  /**
   * amiSelectorTerms before the job changed them: an upgrade never puts them back (that would drift nodes
   * backwards), a rollback of this upgrade does (src/planning/karpenter-originals.ts reads them from this job's data).
   */
  oldTerms: unknown[];
  /** For 'pin': the terms the class gets (the target images' ids, or in a rollback the terms the upgrade recorded). */
  newTerms?: Array<Record<string, unknown>>;
  /** Rollback: where newTerms come from — the upgrade job that recorded them, or SSM (nothing recorded). */
  source?: { kind: 'recorded'; jobId: string } | { kind: 'ssm' };
  /**
   * Rollback of a class that follows an alias (`al2023@latest`): pinned to the N-1 images before the control plane
   * goes back, and these terms (the alias) are put back once it is at N-1 (jobs/steps/karpenter/karpenter-alias-restore.ts).
   */
  restoreAfterControlPlane?: Array<Record<string, unknown>>;
  patched?: boolean;
}

export interface KarpenterStepState {
  startedAt: number;
  pools: Record<string, PoolPlan>;
  classes: Record<string, ClassPlan>;
  /** Pools and classes the step leaves alone, with what the operator must do (posted once). */
  reports: string[];
  /** Per NodePool: its blocked-nodes message (blocked-nodes-message.ts), once a node of the pool was blocked. */
  blocked?: Record<string, BlockedMessageState>;
}

export interface BlockedMessageState {
  /** Nodes ever reported blocked during the drift, for "12 nodes blocked so far". */
  ever: string[];
  /** When the first one was (the message's start). */
  since: number;
  /** How many nodes the message last said were blocked (for its last word when the step ends without a window). */
  now?: number;
  /** A hash of the text last shown, so a window that finds nothing new edits nothing. */
  shown?: string;
  /** The message has had its last word (the pool's drift is over). */
  ended?: boolean;
}

export function readKarpenterState(ctx: StepContext): KarpenterStepState | undefined {
  const saved = ctx.stepState<Record<string, unknown>>();
  if (!saved.pools || typeof saved.startedAt !== 'number') return undefined;
  return structuredClone(saved) as unknown as KarpenterStepState;
}

export async function saveKarpenterState(ctx: StepContext, state: KarpenterStepState): Promise<void> {
  await ctx.saveStepState(structuredClone(state) as unknown as Record<string, unknown>);
}
