import { amiParameter, windowsAmiParameter } from './ami-parameters.js';
import type { AmiArch, AmiFamily, AmiVariant } from './cluster-snapshot.js';

/**
 * Where the AMI for a hop's target comes from, for a group the bot rolls itself (self-managed groups, managed node
 * groups on a custom AMI). clusters.yaml wins: a fixed id for the minor (`ami: {"1.26": ami-…}`) or a parameter
 * with `{minor}` (`amiParameter: /my/amis/{minor}/image_id`). Otherwise an EKS-optimized group follows the SSM
 * public parameter of its own family, architecture and variant — a GPU group stays on the NVIDIA image.
 */
export type AmiSource =
  | { kind: 'parameter'; parameter: string; from: 'clusters.yaml' | 'eks-optimized'; label: string }
  | { kind: 'image'; imageId: string; from: 'clusters.yaml'; label: string }
  | { kind: 'none'; reason: string };

export interface AmiPolicy {
  amiParameter?: string;
  ami?: Record<string, string>;
}

export function configuredAmiSource(policy: AmiPolicy | undefined, target: string): Exclude<AmiSource, { kind: 'none' }> | undefined {
  const fixed = policy?.ami?.[target];
  if (fixed) return { kind: 'image', imageId: fixed, from: 'clusters.yaml', label: `${fixed} (clusters.yaml ami."${target}")` };
  if (policy?.amiParameter) {
    const parameter = policy.amiParameter.replaceAll('{minor}', target);
    return { kind: 'parameter', parameter, from: 'clusters.yaml', label: `SSM ${parameter} (clusters.yaml amiParameter)` };
  }
  return undefined;
}

export interface GroupImage {
  family?: AmiFamily;
  arch: AmiArch;
  variant: AmiVariant;
  /** The node's OS image, for Windows groups (which have no AmiFamily). */
  osImage?: string;
}

export function selfManagedAmiSource(target: string, policy: AmiPolicy | undefined, image: GroupImage): AmiSource {
  const configured = configuredAmiSource(policy, target);
  if (configured) return configured;
  if (image.family) {
    const parameter = amiParameter(target, image.family, image.arch, image.variant);
    const variant = image.variant === 'standard' ? '' : ` ${image.variant}`;
    return { kind: 'parameter', parameter, from: 'eks-optimized', label: `the ${target} ${image.family}${variant} ${image.arch} AMI (SSM ${parameter})` };
  }
  const windows = image.osImage ? windowsAmiParameter(target, image.osImage) : undefined;
  if (windows) return { kind: 'parameter', parameter: windows, from: 'eks-optimized', label: `the ${target} EKS-optimized Windows AMI (SSM ${windows})` };
  return { kind: 'none', reason: `its nodes run ${image.osImage ? `"${image.osImage}"` : 'an unknown OS image'}, not an EKS-optimized one` };
}

/** The clusters.yaml lines that give a group its AMI source, for a gate or a finding to quote. */
export function amiSourceHint(section: 'nodegroups' | 'selfManaged', group: string, target: string): string {
  return `add \`${section}: { ${group}: { amiParameter: "/my/amis/{minor}/image_id" } }\` (or \`ami: { "${target}": ami-… }\`) to this cluster in clusters.yaml`;
}
