import { findCluster, type ClusterConfig, type ClustersConfig } from '../../config/clusters-config.js';
import type { Waiver } from '../model/waiver-match.js';
import { formatPrincipals, isListed, type AuthDecision, type AuthDeps } from '../../domain/authorize.js';

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

/**
 * Whether a finding of the cluster named `clusterName` may be waived by userId, that cluster looked up in clusters.yaml
 * as it is now (a button or a modal may outlive the cluster's entry); `gone` is the sentence when it is not there.
 */
export async function authorizeWaiverRequestFor(deps: AuthDeps & { config: ClustersConfig }, clusterName: string, userId: string, gone: string): Promise<AuthDecision> {
  const cluster = findCluster(deps.config, clusterName);
  return cluster ? authorizeWaiverRequest(deps, cluster, userId) : { allowed: false, reason: gone };
}
