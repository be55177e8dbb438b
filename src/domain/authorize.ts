/**
 * Who may do what, from clusters.yaml. `requesters` start upgrades; `approvers` answer gates and pause, resume or
 * abort; entries are user IDs (U…/W…) or user-group IDs (S…) resolved through Slack. With `twoPersonRule` the
 * person who started an upgrade cannot approve its gates (Atlantis' "apply needs someone other than the author").
 * Stopping is always safe, so the requester may also pause or abort their own job.
 * Refusals are sentences that name who may do it instead.
 */

import type { ClusterConfig } from '../config/clusters-config.js';
import type { Logger } from '../log/logger.js';
import type { UsergroupResolver } from '../ports/bot-deps.js';

export type AuthDecision = { allowed: true } | { allowed: false; reason: string };

export interface AuthDeps {
  usergroups: UsergroupResolver;
  logger: Logger;
}

/**
 * The answers a gate card offers (GateAction in src/upgrade/timeline-event.ts, spelled out here so this rule sits
 * below the engine): a caller passing an action this list lacks fails to compile, and someone decides who may give it.
 */
export type GateAnswer = 'continue' | 'abort' | 'force' | 'remedy';

export type JobControlAction = 'pause' | 'resume' | 'abort';

/** True when userId is listed directly or belongs to a listed user group. */
export async function isListed(deps: AuthDeps, userId: string, list: string[]): Promise<boolean> {
  if (list.includes(userId)) return true;
  for (const entry of list.filter((id) => id.startsWith('S'))) {
    try {
      if ((await deps.usergroups.members(entry)).includes(userId)) return true;
    } catch (error) {
      // A group we cannot read grants nothing; the operator learns why from the log (usually the usergroups:read scope).
      deps.logger.warn({ err: error, usergroup: entry }, 'reading the members of a Slack user group failed; treating it as empty');
    }
  }
  return false;
}

/** "<@U0APP>, <!subteam^S0ONCALL>": Slack renders these as names. */
export function formatPrincipals(list: string[]): string {
  if (list.length === 0) return 'nobody (the list is empty in clusters.yaml)';
  return list.map((id) => (id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`)).join(', ');
}

export async function authorizeStart(deps: AuthDeps, cluster: ClusterConfig, userId: string, what: 'upgrades' | 'rollbacks' = 'upgrades'): Promise<AuthDecision> {
  if (await isListed(deps, userId, cluster.requesters)) return { allowed: true };
  return {
    allowed: false,
    reason: `You are not among the requesters of ${cluster.name}, so you cannot start its ${what}. Requesters: ${formatPrincipals(cluster.requesters)}.`,
  };
}

export async function authorizeJobControl(
  deps: AuthDeps,
  cluster: ClusterConfig,
  job: { requestedBy: string },
  userId: string,
  action: JobControlAction,
): Promise<AuthDecision> {
  // Stopping is always safe, so the requester may pause or abort their own job. Resuming is an approval: under the
  // two-person rule the requester may not resume their own upgrade, even when they are an approver too.
  if (action !== 'resume' && userId === job.requestedBy) return { allowed: true };
  if (await isListed(deps, userId, cluster.approvers)) {
    if (action === 'resume' && cluster.twoPersonRule && userId === job.requestedBy) {
      const others = cluster.approvers.filter((id) => id !== userId);
      return { allowed: false, reason: `${cluster.name} follows the two-person rule: you started this upgrade, so another approver must resume it (${formatPrincipals(others)}).` };
    }
    return { allowed: true };
  }
  return {
    allowed: false,
    reason: `Only the approvers of ${cluster.name} may ${action} its upgrade: ${formatPrincipals(action === 'resume' ? whoMayApprove(cluster, job) : cluster.approvers)}.`,
  };
}

/** The approvers who may approve this job: all of them, less its requester under the two-person rule. */
function whoMayApprove(cluster: ClusterConfig, job: { requestedBy: string }): string[] {
  return cluster.twoPersonRule ? cluster.approvers.filter((id) => id !== job.requestedBy) : cluster.approvers;
}

export async function authorizeGate(
  deps: AuthDeps,
  cluster: ClusterConfig,
  job: { requestedBy: string },
  userId: string,
  action: GateAnswer,
): Promise<AuthDecision> {
  if (action === 'abort') return authorizeJobControl(deps, cluster, job, userId, 'abort');
  if (!(await isListed(deps, userId, cluster.approvers))) {
    // Who may answer instead: under the two-person rule, never the person who started the job.
    return {
      allowed: false,
      reason: `Only the approvers of ${cluster.name} may answer this gate: ${formatPrincipals(whoMayApprove(cluster, job))}.`,
    };
  }
  if (cluster.twoPersonRule && userId === job.requestedBy) {
    const others = cluster.approvers.filter((id) => id !== userId);
    return {
      allowed: false,
      reason: `${cluster.name} follows the two-person rule: you started this upgrade, so another approver must answer its gates (${formatPrincipals(others)}).`,
    };
  }
  return { allowed: true };
}

/** The refusal for a command or click about a cluster from a channel clusters.yaml does not list for it. */
export function channelRefusal(cluster: ClusterConfig): string {
  const where = cluster.channels.map((id) => `<#${id}>`).join(', ') || 'no channel';
  return `${cluster.name} cannot be driven from this channel; clusters.yaml allows it in ${where}.`;
}
