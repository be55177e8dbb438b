import { nodegroupPolicyFor, selfManagedPolicyFor, type ClusterConfig, type NodegroupPolicy, type SelfManagedPolicy } from '../config/clusters-config.js';

/**
 * What clusters.yaml says about how to upgrade one cluster, reduced to what checks and plans need: each node
 * group's strategy (in-place or blue-green, a launch template version for custom AMIs) and the Karpenter budget
 * the job uses while nodes drift. A cluster not in any clusters file (the CLI with --region) gets the defaults.
 */
export interface PlanPolicy {
  nodegroup(name: string): NodegroupPolicy;
  /** How a self-managed group (Auto Scaling group) is rolled, and where its AMI comes from. */
  selfManaged?(name: string): SelfManagedPolicy;
  /** Karpenter disruption budget during the upgrade, e.g. "1" or "10%". */
  upgradeBudget: string;
  /** UpdateAddon resolveConflicts (clusters.yaml addons.resolveConflicts). */
  resolveConflicts: 'NONE' | 'OVERWRITE' | 'PRESERVE';
  /** Where the numbers came from, for the plan's wording. */
  source: 'clusters.yaml' | 'defaults';
}

export const DEFAULT_POLICY: PlanPolicy = {
  nodegroup: () => ({ strategy: 'in-place' }),
  selfManaged: () => ({ strategy: 'rolling', minHealthyPercentage: 90 }),
  upgradeBudget: '1',
  resolveConflicts: 'PRESERVE',
  source: 'defaults',
};

export function policyFromConfig(cluster: ClusterConfig | undefined): PlanPolicy {
  if (!cluster) return DEFAULT_POLICY;
  return {
    nodegroup: (name) => nodegroupPolicyFor(cluster, name),
    selfManaged: (name) => selfManagedPolicyFor(cluster, name),
    upgradeBudget: cluster.karpenter.upgradeBudget,
    resolveConflicts: cluster.addons.resolveConflicts,
    source: 'clusters.yaml',
  };
}
