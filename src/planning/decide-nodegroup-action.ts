import type { NodegroupPolicy } from '../config/clusters-config.js';
import type { ActionKind } from '../ports/upgrade-plan.js';

/**
 * What one managed node group needs for a hop, decided the same way by the planner (from the snapshot) and by the
 * node-group step (from DescribeNodegroup just before it acts). Pure. Order matters: a group pinned to its own AMI
 * (amiType CUSTOM) moves only with a launch template version clusters.yaml names — a version bump or a clone at the
 * new version would not change its AMI —; otherwise the group's strategy (in place by default, or blue/green) says.
 */
export interface NodegroupFacts {
  name: string;
  version?: string;
  amiType?: string;
  /** EKS reports the AMI id here for a group whose launch template names its own image. */
  releaseVersion?: string;
  launchTemplate?: { id?: string; name?: string; version?: string };
}

export type NodegroupDecision =
  | { action: Extract<ActionKind, 'update-in-place'>; request: { version: string }; reason: string }
  | { action: Extract<ActionKind, 'roll-launch-template'>; request: { launchTemplate: { id?: string; name?: string; version: string } }; reason: string }
  | { action: Extract<ActionKind, 'blue-green'>; green: string; reason: string }
  | { action: Extract<ActionKind, 'custom-ami-gate'>; reason: string }
  /** Nothing to do: the group is at the target already. */
  | { action: 'at-target'; reason: string };

/** A node group pinned to its own AMI through its launch template: EKS will not move it on a version bump. */
export function isCustomAmi(ng: Pick<NodegroupFacts, 'amiType' | 'releaseVersion' | 'launchTemplate'>): boolean {
  return ng.amiType === 'CUSTOM' || (!!ng.launchTemplate && /^ami-/.test(ng.releaseVersion ?? ''));
}

/** The green clone's name for a hop: blue-mng → blue-mng-1-31, blue-mng-1-31 → blue-mng-1-32. */
export function greenNameFor(blue: string, to: string): string {
  const base = blue.replace(/-?1-\d+$/, '');
  return `${base}-${to.replace('.', '-')}`.slice(0, 63);
}

export function decideNodegroupAction(ng: NodegroupFacts, policy: NodegroupPolicy, to: string): NodegroupDecision {
  const template = ng.launchTemplate?.name ?? ng.launchTemplate?.id ?? 'its launch template';
  if (isCustomAmi(ng)) {
    const version = policy.launchTemplateVersion;
    if (!version) {
      return { action: 'custom-ami-gate', reason: `${ng.name} runs its own AMI from ${template}; without nodegroups.${ng.name}.launchTemplateVersion in clusters.yaml a gate asks to skip it or abort` };
    }
    if (ng.launchTemplate?.version === version) return { action: 'at-target', reason: `${ng.name} already runs ${template} version ${version}` };
    return {
      action: 'roll-launch-template',
      request: { launchTemplate: { id: ng.launchTemplate?.id, name: ng.launchTemplate?.id ? undefined : ng.launchTemplate?.name, version } },
      reason: `${ng.name} runs its own AMI: rolled to ${template} version ${version} (clusters.yaml)`,
    };
  }
  if (ng.version === to) return { action: 'at-target', reason: `${ng.name} is already at ${to}` };
  if (policy.strategy === 'blue-green') {
    const green = greenNameFor(ng.name, to);
    return { action: 'blue-green', green, reason: `clusters.yaml says blue-green for ${ng.name}: a ${to} clone ${green} replaces it` };
  }
  return { action: 'update-in-place', request: { version: to }, reason: `${ng.name} ${ng.version ?? '?'} → ${to} in place (UpdateNodegroupVersion)` };
}
