import { isCustomAmi } from './decide-nodegroup-action.js';
import type { KubeObject } from '../../ports/kube-port.js';
import type { AmiArch, AmiFamily, AmiLookup, AmiVariant, ClusterSnapshot, NodegroupInfo } from '../cluster-snapshot.js';

/**
 * The SSM public parameters of EKS-optimized AMIs (eks.md, "EKS-optimized AMIs"), and which family/arch each
 * piece of compute uses, so the plan can name the exact AMI a hop needs ("point EC2NodeClass default at
 * ami-0abc…, the 1.26 AL2023 AMI") instead of telling people to go and find it.
 */
export function amiParameter(minor: string, family: AmiFamily, arch: AmiArch, variant: AmiVariant = 'standard'): string {
  if (family === 'AL2023') return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2023/${arch}/${variant}/recommended/image_id`;
  if (family === 'Bottlerocket') return `/aws/service/bottlerocket/aws-k8s-${minor}${variant === 'nvidia' ? '-nvidia' : ''}/${arch}/latest/image_id`;
  // AL2 has one accelerated image, "gpu" (NVIDIA, x86_64 only); AWS publishes no AL2 Neuron parameter of its own.
  const al2 = variant === 'standard' ? `amazon-linux-2${arch === 'arm64' ? '-arm64' : ''}` : 'amazon-linux-2-gpu';
  return `/aws/service/eks/optimized-ami/${minor}/${al2}/recommended/image_id`;
}

/** Windows nodes: the EKS-optimized Windows Server image of the node's OS year (Core edition). */
export function windowsAmiParameter(minor: string, osImage: string): string | undefined {
  const year = /Windows Server (\d{4})/i.exec(osImage)?.[1];
  return year ? `/aws/service/ami-windows-latest/Windows_Server-${year}-English-${/full/i.test(osImage) ? 'Full' : 'Core'}-EKS_Optimized-${minor}/image_id` : undefined;
}

/** AL2_x86_64_GPU, AL2023_x86_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA → nvidia; AL2023_x86_64_NEURON → neuron. */
export function variantOfAmiType(amiType: string | undefined): AmiVariant {
  if (!amiType) return 'standard';
  if (/NEURON/.test(amiType)) return 'neuron';
  if (/GPU|NVIDIA/.test(amiType)) return 'nvidia';
  return 'standard';
}

/**
 * A node's accelerator, from what its kubelet advertises (nvidia.com/gpu, aws.amazon.com/neuron…) or, before the
 * device plugin runs, its instance family: g*, p* → NVIDIA; inf*, trn* → Neuron.
 */
export function variantOfNode(node: KubeObject): AmiVariant {
  const capacity = { ...(node.status?.capacity ?? {}), ...(node.status?.allocatable ?? {}) } as Record<string, unknown>;
  if (Object.keys(capacity).some((key) => key.startsWith('aws.amazon.com/neuron'))) return 'neuron';
  if (Object.keys(capacity).some((key) => key === 'nvidia.com/gpu')) return 'nvidia';
  const type = String(node.metadata.labels?.['node.kubernetes.io/instance-type'] ?? node.metadata.labels?.['beta.kubernetes.io/instance-type'] ?? '');
  if (/^(inf|trn)\d/.test(type)) return 'neuron';
  if (/^(g|p)\d/.test(type)) return 'nvidia';
  return 'standard';
}

/** The variant in an EKS-optimized image name (amazon-eks-node-al2023-x86_64-nvidia-1.30-v…, amazon-eks-gpu-node-…). */
export function variantOfImageName(name: string): AmiVariant {
  if (/-neuron-/.test(name)) return 'neuron';
  if (/-(nvidia|gpu)-/.test(name)) return 'nvidia';
  return 'standard';
}

/** AL2_x86_64 → AL2, AL2023_ARM_64_STANDARD → AL2023, BOTTLEROCKET_* → Bottlerocket; CUSTOM and Windows → undefined. */
export function familyOfAmiType(amiType: string | undefined): AmiFamily | undefined {
  if (!amiType) return undefined;
  if (amiType.startsWith('AL2023')) return 'AL2023';
  if (amiType.startsWith('AL2_')) return 'AL2';
  if (amiType.startsWith('BOTTLEROCKET')) return 'Bottlerocket';
  return undefined;
}

export function archOfAmiType(amiType: string | undefined): AmiArch {
  return amiType && /ARM/.test(amiType) ? 'arm64' : 'x86_64';
}

/** A node group pinned to its own AMI: EKS will not move it on a version bump (the node-group decider's rule). */
export function isCustomAmiNodegroup(ng: NodegroupInfo): boolean {
  return isCustomAmi(ng);
}

/** Family of a node from its OS image (self-managed nodes carry no amiType). */
export function familyOfNode(node: KubeObject): AmiFamily | undefined {
  const os = String(node.status?.nodeInfo?.osImage ?? '');
  if (/Amazon Linux 2023/i.test(os)) return 'AL2023';
  if (/Amazon Linux 2/i.test(os)) return 'AL2';
  if (/Bottlerocket/i.test(os)) return 'Bottlerocket';
  return undefined;
}

export function archOfNode(node: KubeObject): AmiArch {
  return node.status?.nodeInfo?.architecture === 'arm64' ? 'arm64' : 'x86_64';
}

export interface NodeClassAmi {
  /** How the class selects its AMI. `alias` follows the cluster version; `id`/`name` pin an image. */
  selection: 'alias' | 'id' | 'name' | 'ssm' | 'tags' | 'none';
  alias?: string;
  /** Pinned AMI ids (amiSelectorTerms[].id) or names. */
  pinned: string[];
  family?: AmiFamily;
  arch: AmiArch;
}

const ALIAS_FAMILY: Record<string, AmiFamily> = { al2: 'AL2', al2023: 'AL2023', bottlerocket: 'Bottlerocket' };
const FAMILY_NAMES: Record<string, AmiFamily> = { AL2: 'AL2', AL2023: 'AL2023', Bottlerocket: 'Bottlerocket' };

export function nodeClassAmi(nodeClass: KubeObject): NodeClassAmi {
  const terms: Array<Record<string, unknown>> = nodeClass.spec?.amiSelectorTerms ?? [];
  const alias = terms.find((term) => typeof term.alias === 'string')?.alias as string | undefined;
  const ids = terms.filter((term) => typeof term.id === 'string').map((term) => String(term.id));
  const names = terms.filter((term) => typeof term.name === 'string').map((term) => String(term.name));
  const family = (alias ? ALIAS_FAMILY[alias.split('@')[0].toLowerCase()] : undefined) ?? FAMILY_NAMES[String(nodeClass.spec?.amiFamily ?? '')];
  // status.amis carry an arch requirement per image; a class whose images are all arm64 is an arm64 class.
  const arches: string[] = (nodeClass.status?.amis ?? []).flatMap((ami: any) =>
    (ami.requirements ?? []).filter((r: any) => r.key === 'kubernetes.io/arch').flatMap((r: any) => r.values ?? []),
  );
  const arch: AmiArch = arches.length > 0 && arches.every((a) => a === 'arm64') ? 'arm64' : 'x86_64';
  if (alias) return { selection: 'alias', alias, pinned: [], family, arch };
  if (ids.length > 0) return { selection: 'id', pinned: ids, family, arch };
  if (names.length > 0) return { selection: 'name', pinned: names, family, arch };
  if (terms.some((term) => typeof term.ssmParameter === 'string')) return { selection: 'ssm', pinned: [], family, arch };
  if (terms.length > 0) return { selection: 'tags', pinned: [], family, arch };
  return { selection: 'none', pinned: [], family, arch };
}

export function findAmi(snapshot: ClusterSnapshot, minor: string, family: AmiFamily, arch: AmiArch, variant: AmiVariant = 'standard'): AmiLookup | undefined {
  return snapshot.amis.find((ami) => ami.minor === minor && ami.family === family && ami.arch === arch && (ami.variant ?? 'standard') === variant);
}

/**
 * Which Kubernetes minor a pinned AMI was built for: an SSM lookup that returned this id, else the minor in the
 * image name Karpenter resolved (amazon-eks-node-al2023-x86_64-standard-1.25-v20250715).
 */
export function minorOfPinnedAmi(snapshot: ClusterSnapshot, nodeClass: KubeObject, pinned: string): string | undefined {
  const bySsm = snapshot.amis.find((ami) => ami.imageId === pinned);
  if (bySsm) return bySsm.minor;
  const resolved = (nodeClass.status?.amis ?? []).find((ami: any) => ami.id === pinned || ami.name === pinned);
  const name = String(resolved?.name ?? pinned);
  return /-(1\.\d+)-/.exec(name)?.[1];
}

export const FAMILY_LABELS: Record<AmiFamily, string> = { AL2: 'AL2', AL2023: 'AL2023', Bottlerocket: 'Bottlerocket' };

/** "ami-0abc (the 1.26 AL2023 x86_64 AMI, SSM /aws/…)" or a sentence saying why it is not known. */
export function describeTargetAmi(lookup: AmiLookup | undefined, minor: string, family: AmiFamily, arch: AmiArch): string {
  const parameter = lookup?.parameter ?? amiParameter(minor, family, arch, lookup?.variant);
  if (lookup?.imageId) return `${lookup.imageId} (the ${minor} ${FAMILY_LABELS[family]} ${arch} AMI, SSM ${parameter})`;
  if (lookup && !lookup.error) return `no ${FAMILY_LABELS[family]} AMI: AWS publishes none for ${minor} (SSM ${parameter} does not exist)`;
  return `the ${minor} ${FAMILY_LABELS[family]} ${arch} AMI from SSM ${parameter}${lookup?.error ? ` (could not read it: ${lookup.error})` : ''}`;
}
