import type { NodegroupPolicy } from '../../config/clusters-config.js';
import type { ActionKind } from '../../ports/upgrade-plan.js';
import { configuredAmiSource } from './configured-ami-source.js';

/**
 * What one managed node group needs for a hop, decided the same way by the planner (from the snapshot) and by the
 * node-group step (from DescribeNodegroup just before it acts). Pure. Order matters: a group pinned to its own AMI
 * (amiType CUSTOM) moves only with a launch template version carrying the target AMI — one clusters.yaml names
 * (`launchTemplateVersion`), or one the job makes from the AMI source clusters.yaml gives (`amiParameter` / `ami`,
 * issue 13: jobs/steps/nodegroups/custom-ami-version.ts) — a version bump or a clone at the new version would not change its AMI —;
 * otherwise the group's strategy (in place by default, or blue/green) says.
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
  /** `version` NEW_LAUNCH_TEMPLATE_VERSION: the step creates it (the target AMI from the group's configured source). */
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

/** The launch template version a decision asks for when the step is to create it first. */
export const NEW_LAUNCH_TEMPLATE_VERSION = '(new)';

/**
 * `amiVersion`: for a custom-AMI group with an AMI source in clusters.yaml, the launch template version that already
 * carries the target AMI, when one does (the step looks it up; the planner does not, so it plans a new version).
 */
export function decideNodegroupAction(ng: NodegroupFacts, policy: NodegroupPolicy, to: string, amiVersion?: string): NodegroupDecision {
  const template = ng.launchTemplate?.name ?? ng.launchTemplate?.id ?? 'its launch template';
  if (isCustomAmi(ng)) {
    const source = policy.launchTemplateVersion ? undefined : configuredAmiSource(policy, to);
    const version = policy.launchTemplateVersion ?? (source ? amiVersion : undefined);
    if (!version && !source) {
      return { action: 'custom-ami-gate', reason: `${ng.name} runs its own AMI from ${template}; without nodegroups.${ng.name}.launchTemplateVersion (or an amiParameter / ami source) in clusters.yaml a gate asks to skip it or abort` };
    }
    if (version && ng.launchTemplate?.version === version) return { action: 'at-target', reason: `${ng.name} already runs ${template} version ${version}` };
    return {
      action: 'roll-launch-template',
      request: { launchTemplate: { id: ng.launchTemplate?.id, name: ng.launchTemplate?.id ? undefined : ng.launchTemplate?.name, version: version ?? NEW_LAUNCH_TEMPLATE_VERSION } },
      reason: policy.launchTemplateVersion
        ? `${ng.name} runs its own AMI: rolled to ${template} version ${version} (clusters.yaml)`
        : `${ng.name} runs its own AMI: rolled to ${version ? `${template} version ${version}, which carries` : `a new ${template} version with`} ${source!.label}`,
    };
  }
  if (ng.version === to) return { action: 'at-target', reason: `${ng.name} is already at ${to}` };
  if (policy.strategy === 'blue-green') {
    const green = greenNameFor(ng.name, to);
    return { action: 'blue-green', green, reason: `clusters.yaml says blue-green for ${ng.name}: a ${to} clone ${green} replaces it` };
  }
  return { action: 'update-in-place', request: { version: to }, reason: `${ng.name} ${ng.version ?? '?'} → ${to} in place (UpdateNodegroupVersion)` };
}
