import type { KubeObject } from '../../ports/kube-port.js';
import { amiParameter, variantOfImageName } from './ami-parameters.js';
import type { AmiArch, AmiFamily, AmiVariant } from '../cluster-snapshot.js';
import { ARCH_LABEL } from '../karpenter-objects.js';

/**
 * What an EC2NodeClass needs so its nodes move to the target minor (reference/karpenter.md, EC2NodeClass). Pure:
 * - terms that pin images (`id`, `name`, `ssmParameter`) of a known family → point them at the target's
 *   EKS-optimized AMI, read from the family's public SSM parameter for each architecture the pools use;
 * - `alias: <family>@latest` → nothing to change: Karpenter resolves the alias for the cluster's version, so the
 *   control-plane upgrade itself drifts the nodes;
 * - `alias: <family>@v<release>` → the alias pins a release; it follows the version only if that release was
 *   published for the target, which the release's own SSM parameter tells;
 * - anything else (Custom/Windows families, tag or owner selectors) → the operator must supply the AMI.
 */
export type { AmiArch, AmiFamily };

export interface SsmLookup {
  arch: AmiArch;
  parameter: string;
}

export type AmiAction =
  | { kind: 'pin'; family: AmiFamily; lookups: SsmLookup[] }
  | { kind: 'follows-version'; family: AmiFamily; alias: string; lookups: SsmLookup[] }
  | { kind: 'pinned-alias'; family: AmiFamily; alias: string; release: string; lookups: SsmLookup[]; latest: SsmLookup[] }
  | { kind: 'manual'; reason: string };

const FAMILIES: Record<string, AmiFamily> = { al2: 'AL2', al2023: 'AL2023', bottlerocket: 'Bottlerocket' };

/** The parameter of one pinned release, the way Karpenter resolves `al2023@v20240807` for a version. */
export function ssmParameterForRelease(family: AmiFamily, minor: string, arch: AmiArch, release: string): string {
  const date = release.replace(/^v/, '');
  switch (family) {
    case 'AL2023':
      return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2023/${arch}/standard/amazon-eks-node-al2023-${arch}-standard-${minor}-v${date}/image_id`;
    case 'AL2':
      return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2${arch === 'arm64' ? '-arm64' : ''}/amazon-eks-${arch === 'arm64' ? 'arm64-' : ''}node-${minor}-v${date}/image_id`;
    case 'Bottlerocket':
      return `/aws/service/bottlerocket/aws-k8s-${minor}/${arch}/${date}/image_id`;
  }
}

const toArch = (value: string): AmiArch | undefined => (value === 'amd64' ? 'x86_64' : value === 'arm64' ? 'arm64' : undefined);

/**
 * The architectures a NodePool launches: its `kubernetes.io/arch` requirement (In / NotIn), plus those of nodes it
 * already runs, so a pool that once launched arm64 keeps an arm64 image. No requirement: amd64, Karpenter's default.
 */
export function archesOfNodePool(nodePool: KubeObject, nodes: KubeObject[] = []): AmiArch[] {
  const requirements: Array<{ key: string; operator: string; values?: string[] }> = nodePool.spec?.template?.spec?.requirements ?? [];
  const arch = requirements.find((requirement) => requirement.key === ARCH_LABEL);
  let allowed: string[] = [];
  if (arch?.operator === 'In') allowed = arch.values ?? [];
  else if (arch?.operator === 'NotIn') allowed = ['amd64', 'arm64'].filter((value) => !arch.values?.includes(value));
  else if (arch?.operator === 'Exists') allowed = ['amd64', 'arm64'];
  const seen = nodes.map((node) => node.metadata.labels?.[ARCH_LABEL] ?? '');
  const wanted = new Set<AmiArch>();
  for (const value of [...allowed, ...seen]) {
    const found = toArch(value);
    if (found) wanted.add(found);
  }
  if (wanted.size === 0) wanted.add('x86_64');
  return [...wanted].sort();
}

function familyOf(amiFamily: unknown): AmiFamily | undefined {
  return typeof amiFamily === 'string' ? FAMILIES[amiFamily.toLowerCase()] : undefined;
}

export function decideAmiAction(nodeClass: KubeObject, input: { target: string; arches: AmiArch[] }): AmiAction {
  const terms: Array<Record<string, unknown>> = Array.isArray(nodeClass.spec?.amiSelectorTerms) ? nodeClass.spec.amiSelectorTerms : [];
  const name = nodeClass.metadata.name;
  // A class pinned to NVIDIA or Neuron images moves to the same variant, not to the standard image.
  const variants = variantsOfNodeClass(nodeClass);
  const lookupsFor = (family: AmiFamily) => input.arches.flatMap((arch) => variants.map((variant) => ({ arch, parameter: amiParameter(input.target, family, arch, variant) })));

  const alias = terms.find((term) => typeof term.alias === 'string')?.alias as string | undefined;
  if (alias) {
    const [familyName, version = 'latest'] = alias.split('@');
    const family = FAMILIES[familyName.toLowerCase()];
    if (!family) return { kind: 'manual', reason: `EC2NodeClass ${name} uses alias ${alias}, a family this bot cannot resolve; point it at a ${input.target} AMI yourself` };
    if (version === 'latest') return { kind: 'follows-version', family, alias, lookups: lookupsFor(family) };
    return {
      kind: 'pinned-alias', family, alias, release: version,
      lookups: input.arches.map((arch) => ({ arch, parameter: ssmParameterForRelease(family, input.target, arch, version) })),
      latest: lookupsFor(family),
    };
  }

  const family = familyOf(nodeClass.spec?.amiFamily);
  if (!family) {
    const what = nodeClass.spec?.amiFamily ? `amiFamily ${nodeClass.spec.amiFamily}` : 'no amiFamily';
    return { kind: 'manual', reason: `EC2NodeClass ${name} has ${what}, so there is no EKS-optimized AMI to move it to; build a ${input.target} AMI and put its id in amiSelectorTerms` };
  }
  if (terms.length === 0) return { kind: 'manual', reason: `EC2NodeClass ${name} has no amiSelectorTerms; add one for a ${input.target} AMI` };
  const pinning = terms.every((term) => typeof term.id === 'string' || typeof term.name === 'string' || typeof term.ssmParameter === 'string');
  if (!pinning) {
    return { kind: 'manual', reason: `EC2NodeClass ${name} selects its AMIs by tags or owner; tag a ${input.target} AMI so the selector finds it, or pin its id` };
  }
  return { kind: 'pin', family, lookups: lookupsFor(family) };
}

/** The variants of the images a class resolved (status.amis names); standard when it names none. */
export function variantsOfNodeClass(nodeClass: KubeObject): AmiVariant[] {
  const names: string[] = (nodeClass.status?.amis ?? []).map((ami: { name?: string }) => String(ami.name ?? ''));
  const variants = [...new Set(names.filter(Boolean).map(variantOfImageName))].sort();
  return variants.length ? variants : ['standard'];
}

/** The amiSelectorTerms that pin the resolved target images, one id per architecture and variant. */
export function pinnedTerms(amiIds: string[]): Array<{ id: string }> {
  return [...new Set(amiIds)].map((id) => ({ id }));
}

/** Whether the class's current terms already are exactly the target ids (then there is nothing to patch). */
export function termsPinTo(terms: unknown, amiIds: string[]): boolean {
  if (!Array.isArray(terms)) return false;
  const ids = terms.map((term) => (term && typeof term === 'object' && Object.keys(term).length === 1 ? (term as { id?: unknown }).id : undefined));
  return ids.every((id) => typeof id === 'string') && new Set(ids).size === new Set(amiIds).size && amiIds.every((id) => ids.includes(id));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** Whether the class's terms already are `wanted` (ids in any order; other terms exactly, keys in any order). */
export function termsMatch(current: unknown, wanted: Array<Record<string, unknown>>): boolean {
  const ids = wanted.map((term) => (Object.keys(term).length === 1 && typeof term.id === 'string' ? term.id : undefined));
  if (ids.every((id): id is string => id !== undefined)) return termsPinTo(current, ids);
  return JSON.stringify(canonical(current)) === JSON.stringify(canonical(wanted));
}

/** "id ami-0abc", "alias al2023@latest", "ssmParameter /aws/…", "tags {"team/ami":"golden"}" — for messages. */
export function describeTerms(terms: unknown): string {
  if (!Array.isArray(terms) || terms.length === 0) return 'no terms';
  return terms
    .map((term) => Object.entries((term ?? {}) as Record<string, unknown>).map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(' '))
    .join(', ');
}
