import type { Update } from '@aws-sdk/client-eks';
import { DEFAULT_ROLLBACK_TIMEOUT_MINUTES, type ClusterConfig } from '../config/clusters-config.js';
import { buildRollbackPlan } from '../planning/planner/build-plan.js';
import { valueOr, type ClusterSnapshot } from '../planning/cluster-snapshot.js';
import type { PlanPolicy } from '../planning/plan-policy.js';
import { checkRollbackPreflight, previousMinor, type RollbackPreflight } from '../planning/rollback-preflight.js';
import type { EksPort } from '../ports/aws/eks-port.js';
import type { UpgradePlan } from '../ports/upgrade-plan.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { preflightReads } from './preflight-reads.js';
import { readUpdatesByTime } from './read-updates-by-time.js';

/**
 * Everything a rollback decision reads (issue 10): the cluster snapshot with N-1 as the target minor (add-on
 * versions, AMIs), the cluster's recent updates described (the window starts at the in-place upgrade), and from
 * them the rollback preflight and plan. Shared by `rollback`, `plan --rollback`, `status` and the CLI.
 */
export interface RollbackReading {
  snapshot: ClusterSnapshot;
  /** The minor a rollback goes back to. */
  to: string;
  updates: Update[];
  preflight: RollbackPreflight;
  plan: UpgradePlan;
}

/** The cluster's latest `limit` updates by `createdAt`, oldest first (ListUpdates itself keeps no order). */
export async function readClusterUpdates(eks: EksPort, cluster: string, limit = 20): Promise<Update[]> {
  return (await readUpdatesByTime(eks, cluster)).slice(-limit);
}

export class RollbackReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RollbackReadError';
  }
}

export async function readRollback(
  sources: SnapshotSources,
  cluster: Pick<ClusterConfig, 'name' | 'region' | 'roleArn' | 'checks' | 'rollbackTimeoutMinutes'>,
  options: { policy?: PlanPolicy; target?: string; maxInsightsWaitMs?: number } = {},
): Promise<RollbackReading> {
  const eks = sources.eks({ region: cluster.region, roleArn: cluster.roleArn });
  const described = await eks.describeCluster(cluster.name);
  const version = described.version ?? '';
  const to = options.target ?? previousMinor(version);
  if (!to) throw new RollbackReadError(`EKS reports version "${version}" for ${cluster.name}, which is not a Kubernetes minor; there is nothing to roll back.`);
  const [snapshot, updates] = await Promise.all([
    collectSnapshot(sources, {
      name: cluster.name,
      region: cluster.region,
      roleArn: cluster.roleArn,
      targetMinors: [to],
      ...preflightReads(cluster as ClusterConfig, options.maxInsightsWaitMs),
      askAccess: true,
    }),
    readClusterUpdates(eks, cluster.name),
  ]);
  const support = valueOr(snapshot.versions, []).find((offered) => offered.version === to)?.support;
  const preflight = checkRollbackPreflight({
    cluster: cluster.name,
    status: String(described.status ?? 'UNKNOWN'),
    version,
    target: to,
    supportType: described.upgradePolicy?.supportType as 'STANDARD' | 'EXTENDED' | undefined,
    targetSupport: support,
    updates,
    insights: valueOr(snapshot.insights, []),
    now: sources.clock.now(),
  });
  const timeoutMinutes = cluster.rollbackTimeoutMinutes ?? DEFAULT_ROLLBACK_TIMEOUT_MINUTES;
  const plan = buildRollbackPlan(snapshot, to, preflight, { policy: options.policy, timeoutMinutes });
  return { snapshot, to, updates, preflight, plan };
}
