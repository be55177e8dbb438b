import { formatMinor, minorOfKubelet } from '../domain/minor-version.js';
import type { KubeObject } from '../ports/kube-port.js';

/**
 * Where a Karpenter drift rollout stands, from what the watches have seen. Pure. "Replaced" counts the NodeClaims
 * that were below the target when the step began and are gone now; "in flight" the NodeClaims launching and not
 * yet Ready; "disrupting" the nodes carrying Karpenter's disruption taint. The rollout is done when every original
 * is replaced, nothing is in flight and every node of the pools runs the target minor.
 */
export interface DriftOriginal {
  nodeClaim: string;
  node?: string;
  pool: string;
}

export interface DriftProgress {
  total: number;
  replaced: number;
  drifted: number;
  inFlight: number;
  disrupting: string[];
  nodesBelowTarget: string[];
  done: boolean;
}

const DISRUPTION_TAINTS = new Set(['karpenter.sh/disrupted', 'karpenter.sh/disruption']);

export function conditionTrue(object: KubeObject, type: string): boolean {
  return (object.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === type && c.status === 'True');
}

export function kubeletMinorOf(node: KubeObject): string | undefined {
  const minor = minorOfKubelet(String(node.status?.nodeInfo?.kubeletVersion ?? ''));
  return minor && formatMinor(minor);
}

export function isDisrupting(node: KubeObject): boolean {
  return (node.spec?.taints ?? []).some((taint: { key: string }) => DISRUPTION_TAINTS.has(taint.key));
}

export function poolOf(object: KubeObject): string | undefined {
  return object.metadata.labels?.['karpenter.sh/nodepool'];
}

/** The NodeClaims of `pools` whose node runs below `target`: what the rollout must replace. */
export function driftOriginals(nodeClaims: KubeObject[], nodes: KubeObject[], pools: Set<string>, target: string): DriftOriginal[] {
  const byName = new Map(nodes.map((node) => [node.metadata.name, node]));
  return nodeClaims
    .filter((claim) => pools.has(poolOf(claim) ?? '') && !claim.metadata.deletionTimestamp)
    .filter((claim) => {
      const node = byName.get(claim.status?.nodeName);
      const minor = node && kubeletMinorOf(node);
      return !minor || minor !== target;
    })
    .map((claim) => ({ nodeClaim: claim.metadata.name, node: claim.status?.nodeName, pool: poolOf(claim)! }));
}

export function driftProgress(originals: DriftOriginal[], nodeClaims: KubeObject[], nodes: KubeObject[], pools: Set<string>, target: string): DriftProgress {
  const claimNames = new Set(nodeClaims.map((claim) => claim.metadata.name));
  const mine = nodeClaims.filter((claim) => pools.has(poolOf(claim) ?? ''));
  const poolNodes = nodes.filter((node) => pools.has(poolOf(node) ?? ''));
  const replaced = originals.filter((original) => !claimNames.has(original.nodeClaim)).length;
  const drifted = mine.filter((claim) => conditionTrue(claim, 'Drifted')).length;
  const inFlight = mine.filter((claim) => !claim.metadata.deletionTimestamp && !conditionTrue(claim, 'Ready')).length;
  const disrupting = poolNodes.filter(isDisrupting).map((node) => node.metadata.name);
  const nodesBelowTarget = poolNodes.filter((node) => kubeletMinorOf(node) !== target).map((node) => node.metadata.name);
  return {
    total: originals.length,
    replaced,
    drifted,
    inFlight,
    disrupting,
    nodesBelowTarget,
    done: replaced === originals.length && inFlight === 0 && nodesBelowTarget.length === 0,
  };
}

export function describeDrift(progress: DriftProgress): string {
  const parts = [`NodeClaims replaced ${progress.replaced}/${progress.total}`];
  if (progress.drifted) parts.push(`${progress.drifted} drifted`);
  if (progress.inFlight) parts.push(`${progress.inFlight} in flight`);
  if (progress.disrupting.length) parts.push(`${progress.disrupting.length} node(s) disrupting`);
  return parts.join(', ');
}
