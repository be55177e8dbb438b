import { createHash } from 'node:crypto';
import type { KubeObject } from '../../kube-types/kube-object.js';

/**
 * The static-drift hashes Karpenter stamps on NodeClaims (karpenter.sh/nodepool-hash,
 * karpenter.k8s.aws/ec2nodeclass-hash). Real Karpenter hashes with hashstructure (FNV-64a, decimal); the sim hashes
 * canonical JSON with SHA-256 and prints 64 bits as a decimal, which looks the same to users and compares the same.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function hash64(value: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(canonical(value))).digest();
  return digest.readBigUInt64BE(0).toString(10);
}

/**
 * NodePool hash: template metadata, taints, startupTaints, expireAfter, terminationGracePeriod and nodeClassRef.
 * Requirements are left out on purpose — Karpenter checks them separately (RequirementsDrifted) because a
 * widened requirement must not drift nodes that still satisfy it.
 */
export function nodePoolHash(nodePool: KubeObject): string {
  const template = nodePool.spec?.template ?? {};
  const spec = template.spec ?? {};
  return hash64({
    labels: template.metadata?.labels ?? {},
    annotations: template.metadata?.annotations ?? {},
    taints: spec.taints ?? [],
    startupTaints: spec.startupTaints ?? [],
    expireAfter: spec.expireAfter ?? '720h',
    terminationGracePeriod: spec.terminationGracePeriod,
    nodeClassRef: spec.nodeClassRef ?? {},
  });
}

/**
 * EC2NodeClass hash: the spec without the selector terms, which drift dynamically (AMIDrift, SubnetDrift,
 * SecurityGroupDrift) by comparing what they resolve to rather than how they are written.
 */
export function nodeClassHash(nodeClass: KubeObject): string {
  const { amiSelectorTerms, subnetSelectorTerms, securityGroupSelectorTerms, capacityReservationSelectorTerms, ...rest } =
    nodeClass.spec ?? {};
  void amiSelectorTerms;
  void subnetSelectorTerms;
  void securityGroupSelectorTerms;
  void capacityReservationSelectorTerms;
  return hash64(rest);
}
