import { CLUSTER_DEFAULTS, DEFAULT_CHECK_SETTINGS, DEFAULT_NODEGROUP_POLICY, DEFAULT_SELF_MANAGED_POLICY, GATES_ON, nodegroupPolicyFor, selfManagedPolicyFor, type CheckSettings, type ClusterConfig, type GateSwitches, type NodegroupPolicy, type SelfManagedPolicy } from '../config/clusters-config.js';
import { guardWatches } from '../config/guards-config.js';
import type { MaintenanceWindow } from '../domain/maintenance-window.js';
import type { Waiver } from '../waivers/model/waiver.js';
import { configWaivers } from '../waivers/policy/config-waivers.js';

/**
 * What clusters.yaml says about how to upgrade one cluster, reduced to what checks and plans need: each node
 * group's strategy (in-place or blue-green, a launch template version for custom AMIs), the Karpenter budget the
 * job uses while nodes drift, the per-check settings and the waivers in force (clusters.yaml's, plus those
 * approved in Slack when the caller could read them). A cluster not in any clusters file (the CLI with --region)
 * gets the defaults.
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
  /** clusters.yaml `checks:` (absent: the defaults). */
  checks?: CheckSettings;
  /** Waivers to apply to the findings (expired or revoked ones included: the applier judges them). */
  waivers?: Waiver[];
  /** Set when Slack waivers could not be read, so the plan can say it used clusters.yaml's alone. */
  waiverNote?: string;
  /** clusters.yaml maintenanceWindow (UTC), for checks about what happens inside it. */
  maintenanceWindow?: MaintenanceWindow;
  /** clusters.yaml `gates:`: which kinds ask an approver first (absent: all of them). */
  gates?: GateSwitches;
  /** clusters.yaml `guards:` in words ("checkout available: … (breached when < 0.99)"), for the plan to list. */
  guards?: string[];
}

export const DEFAULT_POLICY: PlanPolicy = {
  nodegroup: () => ({ ...DEFAULT_NODEGROUP_POLICY }),
  selfManaged: () => ({ ...DEFAULT_SELF_MANAGED_POLICY }),
  upgradeBudget: CLUSTER_DEFAULTS.karpenter.upgradeBudget,
  resolveConflicts: CLUSTER_DEFAULTS.addons.resolveConflicts,
  source: 'defaults',
};

export function checkSettingsOf(policy: PlanPolicy): CheckSettings {
  return policy.checks ?? DEFAULT_CHECK_SETTINGS;
}

export function policyFromConfig(cluster: ClusterConfig | undefined, slackWaivers: Waiver[] = [], waiverNote?: string): PlanPolicy {
  if (!cluster) return DEFAULT_POLICY;
  return {
    nodegroup: (name) => nodegroupPolicyFor(cluster, name),
    selfManaged: (name) => selfManagedPolicyFor(cluster, name),
    upgradeBudget: cluster.karpenter.upgradeBudget,
    resolveConflicts: cluster.addons.resolveConflicts,
    source: 'clusters.yaml',
    checks: cluster.checks ?? DEFAULT_CHECK_SETTINGS,
    waivers: [...configWaivers(cluster), ...slackWaivers.filter((waiver) => waiver.cluster === cluster.name)],
    ...(waiverNote ? { waiverNote } : {}),
    ...(cluster.maintenanceWindow ? { maintenanceWindow: cluster.maintenanceWindow } : {}),
    gates: cluster.gates ?? GATES_ON,
    ...(cluster.guards?.length ? { guards: cluster.guards.map((guard) => `${guard.name}: ${guardWatches(guard)}`) } : {}),
  };
}
