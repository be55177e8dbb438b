import { amiParameter, windowsAmiParameter } from './ami-parameters.js';
import type { AmiArch, AmiFamily, AmiVariant } from '../cluster-snapshot.js';
import { configuredAmiSource, type AmiPolicy, type AmiSource } from './configured-ami-source.js';

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
