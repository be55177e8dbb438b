/**
 * Where the AMI for a hop's target comes from, for a group the bot rolls itself (self-managed groups, managed node
 * groups on a custom AMI). clusters.yaml wins: a fixed id for the minor (`ami: {"1.26": ami-…}`) or a parameter
 * with `{minor}` (`amiParameter: /my/amis/{minor}/image_id`). Otherwise an EKS-optimized group follows the SSM
 * public parameter of its own family, architecture and variant (ami-source.ts). Pure, and imports nothing: the
 * node-group decider reads it too.
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
