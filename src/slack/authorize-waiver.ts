import type { ClusterConfig } from '../config/clusters-config.js';
import type { Waiver } from '../domain/waiver.js';
import { formatPrincipals, isListed, type AuthDecision, type AuthDeps } from '../domain/authorize.js';

/**
 * Who may do what with waivers, from clusters.yaml: requesters and approvers may ask for one; approvers decide.
 * Under `twoPersonRule` the person who asked cannot approve their own waiver (someone else must agree the finding
 * may stand). Any approver may reject or revoke, the asker included: withdrawing a waiver is always safe.
 */
export async function authorizeWaiverRequest(deps: AuthDeps, cluster: ClusterConfig, userId: string): Promise<AuthDecision> {
  if ((await isListed(deps, userId, cluster.requesters)) || (await isListed(deps, userId, cluster.approvers))) return { allowed: true };
  return {
    allowed: false,
    reason: `Only the requesters and approvers of ${cluster.name} may ask to waive its findings: ${formatPrincipals([...cluster.requesters, ...cluster.approvers])}.`,
  };
}

export async function authorizeWaiverDecision(
  deps: AuthDeps,
  cluster: ClusterConfig,
  waiver: Pick<Waiver, 'requestedBy'>,
  userId: string,
  decision: 'approve' | 'reject' | 'revoke',
): Promise<AuthDecision> {
  if (!(await isListed(deps, userId, cluster.approvers))) {
    return { allowed: false, reason: `Only the approvers of ${cluster.name} may ${decision} its waivers: ${formatPrincipals(cluster.approvers)}.` };
  }
  if (decision === 'approve' && cluster.twoPersonRule && userId === waiver.requestedBy) {
    return {
      allowed: false,
      reason: `${cluster.name} follows the two-person rule: you asked for this waiver, so another approver must approve it (${formatPrincipals(cluster.approvers.filter((id) => id !== userId))}).`,
    };
  }
  return { allowed: true };
}
