/**
 * How an EC2NodeClass picks its AMI, and which SSM public parameter holds the EKS-optimized AMI of a Kubernetes
 * minor for its family (eks.md, "EKS-optimized AMIs"). Pure. An alias (`al2023@latest`) already follows the
 * control-plane version, so Karpenter drifts the nodes by itself; an `id` term must be pointed at the new AMI;
 * name / tag / ssmParameter terms are the operator's to change.
 */
export type AmiSelection =
  | { kind: 'alias'; alias: string; followsClusterVersion: boolean }
  | { kind: 'id'; ids: string[] }
  | { kind: 'other'; description: string };

export function classifyAmiSelector(terms: Array<Record<string, unknown>> | undefined): AmiSelection {
  const list = terms ?? [];
  const alias = list.find((term) => typeof term.alias === 'string')?.alias as string | undefined;
  if (alias) return { kind: 'alias', alias, followsClusterVersion: /@latest$/.test(alias) };
  if (list.length > 0 && list.every((term) => typeof term.id === 'string' && Object.keys(term).length === 1)) {
    return { kind: 'id', ids: list.map((term) => term.id as string) };
  }
  const description = list.map((term) => Object.keys(term).join('+')).join(', ') || 'no amiSelectorTerms';
  return { kind: 'other', description };
}

export type AmiArch = 'x86_64' | 'arm64';

/** The family from amiFamily, or from an alias prefix ("al2023@latest" → AL2023). */
export function amiFamilyOf(spec: { amiFamily?: string; amiSelectorTerms?: Array<Record<string, unknown>> } | undefined): string | undefined {
  if (spec?.amiFamily) return spec.amiFamily;
  const alias = spec?.amiSelectorTerms?.find((term) => typeof term.alias === 'string')?.alias as string | undefined;
  const prefix = alias?.split('@')[0]?.toLowerCase();
  return prefix === 'al2023' ? 'AL2023' : prefix === 'al2' ? 'AL2' : prefix === 'bottlerocket' ? 'Bottlerocket' : undefined;
}

/** The SSM parameter with the recommended AMI id for `minor`, or undefined for a family without one (Custom). */
export function amiParameterFor(family: string | undefined, minor: string, arch: AmiArch = 'x86_64'): string | undefined {
  switch (family) {
    case 'AL2023':
      return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2023/${arch}/standard/recommended/image_id`;
    case 'AL2':
      return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2${arch === 'arm64' ? '-arm64' : ''}/recommended/image_id`;
    case 'Bottlerocket':
      return `/aws/service/bottlerocket/aws-k8s-${minor}/${arch}/latest/image_id`;
    default:
      return undefined;
  }
}

/** Node `kubernetes.io/arch` label (amd64 | arm64) to the AMI architecture. */
export function amiArchOf(nodeArch: string | undefined): AmiArch {
  return nodeArch === 'arm64' ? 'arm64' : 'x86_64';
}
