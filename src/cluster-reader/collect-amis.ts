/**
 * Which EKS-optimized AMIs a plan needs to name, and their ids from SSM: for Karpenter classes that pin an AMI and
 * for custom-AMI node groups, the current minor (to recognise what is pinned) and each target minor; for
 * self-managed nodes, each target minor. Only what is in use is looked up.
 */

import type { SsmPort } from '../ports/aws/ssm-port.js';
import { amiParameter, archOfAmiType, archOfNode, familyOfNode, isCustomAmiNodegroup, nodeClassAmi, variantOfNode } from '../planning/deciders/ami-parameters.js';
import type { AmiArch, AmiFamily, AmiLookup, AmiVariant, KubeSnapshot, NodegroupInfo } from '../planning/cluster-snapshot.js';
import { computeOfNode } from '../planning/compute-groups.js';
import type { Limiter } from './bounded.js';

export interface AmiWanted {
  family: AmiFamily;
  arch: AmiArch;
  variant?: AmiVariant;
  minors: string[];
}

export function amisWanted(nodegroups: NodegroupInfo[], kube: KubeSnapshot, current: string, targets: string[]): AmiWanted[] {
  const wanted = new Map<string, AmiWanted>();
  const want = (family: AmiFamily, arch: AmiArch, minors: string[], variant: AmiVariant = 'standard') => {
    const key = `${family}/${arch}/${variant}`;
    const entry = wanted.get(key) ?? { family, arch, minors: [], ...(variant === 'standard' ? {} : { variant }) };
    for (const minor of minors) if (!entry.minors.includes(minor)) entry.minors.push(minor);
    wanted.set(key, entry);
  };
  for (const ng of nodegroups.filter(isCustomAmiNodegroup)) {
    // A custom AMI may well be an EKS-optimized one; both common families are looked up to recognise it.
    for (const family of ['AL2', 'AL2023'] as const) want(family, archOfAmiType(ng.amiType), [current, ...targets]);
  }
  const karpenter = kube.karpenter.ok ? kube.karpenter.value : undefined;
  for (const nodeClass of karpenter?.nodeClasses ?? []) {
    const ami = nodeClassAmi(nodeClass);
    if ((ami.selection === 'id' || ami.selection === 'name' || ami.selection === 'ssm') && ami.family) want(ami.family, ami.arch, [current, ...targets]);
  }
  for (const node of kube.nodes.ok ? kube.nodes.value : []) {
    if (computeOfNode(node).type !== 'self-managed') continue;
    const family = familyOfNode(node);
    // A GPU or Neuron group moves to the same variant (issue 13), not to the standard image.
    if (family) want(family, archOfNode(node), targets, variantOfNode(node));
  }
  return [...wanted.values()];
}

export async function lookupAmis(ssm: SsmPort, wanted: AmiWanted[], run: Limiter, describe: (op: string, e: unknown) => string): Promise<AmiLookup[]> {
  const lookups = wanted.flatMap(({ family, arch, variant, minors }) => minors.map((minor) => ({ family, arch, minor, ...(variant ? { variant } : {}), parameter: amiParameter(minor, family, arch, variant) })));
  return Promise.all(
    lookups.map(async (lookup): Promise<AmiLookup> => {
      try {
        const imageId = await run(() => ssm.getParameter(lookup.parameter));
        return { ...lookup, ...(imageId ? { imageId } : {}) };
      } catch (error) {
        return { ...lookup, error: describe(`GetParameter ${lookup.parameter}`, error) };
      }
    }),
  );
}
