import { AMI_BUILD_DATE, amiIdFor, describeAmi, isAmiPublished, isKnownMinor, releaseVersionFor, type AmiArch, type AmiFamily } from '../aws/eks/version-catalog.js';
import type { Requirement } from './nodeclaims/scheduling-rules.js';

/**
 * Resolves an EC2NodeClass's amiSelectorTerms to status.amis the way Karpenter's AWS provider does: an alias
 * (al2023@latest, al2023@v20240807, bottlerocket@latest) follows the control plane's Kubernetes minor through the
 * SSM parameters, an id names one image, ssmParameter reads a public parameter. Each image carries an arch
 * requirement so nodes of either arch find their image.
 */
export interface ResolvedAmi {
  id: string;
  name: string;
  requirements: Requirement[];
}

const ALIAS_FAMILIES: Record<string, AmiFamily> = { al2: 'AL2', al2023: 'AL2023', bottlerocket: 'Bottlerocket' };
const ARCHES: AmiArch[] = ['x86_64', 'arm64'];

export function amiName(minor: string, family: AmiFamily, arch: AmiArch): string {
  if (family === 'AL2023') return `amazon-eks-node-al2023-${arch}-standard-${minor}-v${AMI_BUILD_DATE}`;
  if (family === 'Bottlerocket') return `bottlerocket-aws-k8s-${minor}-${arch}-v${releaseVersionFor(minor, family)}`;
  return arch === 'arm64' ? `amazon-eks-arm64-node-${minor}-v${AMI_BUILD_DATE}` : `amazon-eks-node-${minor}-v${AMI_BUILD_DATE}`;
}

function image(minor: string, family: AmiFamily, arch: AmiArch): ResolvedAmi {
  return {
    id: amiIdFor(minor, family, arch),
    name: amiName(minor, family, arch),
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [arch === 'arm64' ? 'arm64' : 'amd64'] }],
  };
}

function imagesFor(minor: string, family: AmiFamily): ResolvedAmi[] {
  if (!isKnownMinor(minor) || !isAmiPublished(minor, family)) return [];
  return ARCHES.map((arch) => image(minor, family, arch));
}

/** Family named by an alias term ("al2023@latest" → AL2023); undefined for anything else. */
export function aliasFamily(alias: string): AmiFamily | undefined {
  return ALIAS_FAMILIES[alias.split('@')[0]?.toLowerCase() ?? ''];
}

// /aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id and the AL2 form.
const SSM_PATH = /^\/aws\/service\/eks\/optimized-ami\/(\d+\.\d+)\/(amazon-linux-2023|amazon-linux-2(?:-arm64)?)\/(?:(x86_64|arm64)\/)?/;

function resolveTerm(term: Record<string, any>, clusterMinor: string): ResolvedAmi[] {
  if (typeof term.alias === 'string') {
    const family = aliasFamily(term.alias);
    // A pinned alias (al2023@v20240807) pins the AMI release but still follows the cluster's minor.
    return family ? imagesFor(clusterMinor, family) : [];
  }
  if (typeof term.id === 'string') {
    const known = describeAmi(term.id);
    if (known) return [image(known.minor, known.family, known.arch)];
    // An image the catalog never published (a custom AMI): assume x86_64 and name it after itself.
    return [{ id: term.id, name: term.id, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }];
  }
  if (typeof term.ssmParameter === 'string') {
    const match = SSM_PATH.exec(term.ssmParameter);
    if (!match) return [];
    const family: AmiFamily = match[2] === 'amazon-linux-2023' ? 'AL2023' : 'AL2';
    const arch: AmiArch = match[3] === 'arm64' || match[2].endsWith('arm64') ? 'arm64' : 'x86_64';
    return isKnownMinor(match[1]) && isAmiPublished(match[1], family) ? [image(match[1], family, arch)] : [];
  }
  if (typeof term.name === 'string') {
    const minor = /-(1\.\d+)-/.exec(term.name)?.[1];
    if (!minor) return [];
    const family: AmiFamily = term.name.includes('al2023') ? 'AL2023' : term.name.startsWith('bottlerocket') ? 'Bottlerocket' : 'AL2';
    return imagesFor(minor, family).filter((ami) => ami.name === term.name || term.name.includes('*'));
  }
  // tags/owner-only terms select private images the sim does not model.
  return [];
}

export function resolveAmis(amiSelectorTerms: Array<Record<string, any>> | undefined, clusterMinor: string): ResolvedAmi[] {
  const seen = new Set<string>();
  const amis: ResolvedAmi[] = [];
  for (const term of amiSelectorTerms ?? []) {
    for (const ami of resolveTerm(term, clusterMinor)) {
      if (seen.has(ami.id)) continue;
      seen.add(ami.id);
      amis.push(ami);
    }
  }
  return amis;
}

/** The family a node class launches: amiFamily, else the alias's family, else AL2023 (Karpenter v1's default). */
export function nodeClassFamily(spec: Record<string, any> | undefined): AmiFamily {
  const declared = spec?.amiFamily;
  if (declared === 'AL2' || declared === 'AL2023' || declared === 'Bottlerocket') return declared;
  const alias = (spec?.amiSelectorTerms ?? []).find((term: Record<string, any>) => typeof term.alias === 'string');
  return (alias && aliasFamily(alias.alias)) || 'AL2023';
}

/** "1.30" from "1.30", "v1.30.14-eks-f69f56f" or "1.30.14". */
export function minorOf(version: string): string {
  const match = /(\d+)\.(\d+)/.exec(version);
  if (!match) throw new Error(`karpenter sim: cannot read a Kubernetes minor from cluster version "${version}"`);
  return `${match[1]}.${match[2]}`;
}
