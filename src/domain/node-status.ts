/**
 * What a node's kubelet reports about it, read the one way the product reads it: Ready is the Ready condition being
 * True (Unknown, a node that stopped reporting, is not Ready), and the kubelet's minor comes from
 * status.nodeInfo.kubeletVersion ("v1.31.14-eks-ecaa3a6" → "1.31"). The simulator keeps its own copies on purpose.
 */

import type { KubeObject } from '../kube-types/kube-object.js';
import { formatMinor, minorOfKubelet } from './minor-version.js';

export function isNodeReady(node: Pick<KubeObject, 'status'>): boolean {
  const conditions: Array<{ type?: string; status?: string }> = Array.isArray(node.status?.conditions) ? node.status.conditions : [];
  return conditions.some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

/** The minor ("1.31") a node's kubelet runs, or undefined when there is no node or its version cannot be read. */
export function kubeletMinorOf(node: { status?: any } | undefined): string | undefined {
  const version = node?.status?.nodeInfo?.kubeletVersion;
  if (typeof version !== 'string') return undefined;
  const minor = minorOfKubelet(version);
  return minor ? formatMinor(minor) : undefined;
}
