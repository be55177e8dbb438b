import type { SimCall } from './aws/world-types.js';

/**
 * GET /_sim/disruptions[?cluster=&since=]: what callers of the simulator (the bot) did that disrupts workloads or
 * nodes, in simulated time, so a test can assert "no disruption the bot started after the guard breached": the AWS
 * calls that replace, terminate or resize capacity or move versions, and the Kubernetes writes that take pods or nodes
 * away (evictions, pod, node and NodeClaim deletions). What the simulated controllers do on their own afterwards
 * (an in-flight node group update, Karpenter's own replacements) is not a caller's and is not listed here; the
 * timeline (GET /_sim/timeline) has Karpenter's NodeClaim deletions.
 */
export interface KubeWrite {
  cluster: string;
  method: string;
  path: string;
  /** Simulated time of the request (epoch ms). */
  at: number;
}

export interface Disruption {
  at: string;
  cluster?: string;
  kind: string;
  target?: string;
}

/** The AWS operations that disrupt: each replaces, terminates or resizes nodes, or moves a version. */
const DISRUPTIVE_AWS = new Set([
  'UpdateClusterVersion', 'UpdateNodegroupVersion', 'CreateNodegroup', 'DeleteNodegroup', 'UpdateAddon',
  'TerminateInstanceInAutoScalingGroup', 'StartInstanceRefresh', 'UpdateAutoScalingGroup',
]);

function kubeKind(write: KubeWrite): { kind: string; target: string } | undefined {
  const path = write.path;
  let m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/eviction$/.exec(path);
  if (m && write.method === 'POST') return { kind: 'eviction', target: `${m[1]}/${m[2]}` };
  if (write.method !== 'DELETE') return undefined;
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(path))) return { kind: 'pod-delete', target: `${m[1]}/${m[2]}` };
  if ((m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(path))) return { kind: 'node-delete', target: m[1] };
  if ((m = /^\/apis\/karpenter\.sh\/v1\/nodeclaims\/([^/]+)$/.exec(path))) return { kind: 'nodeclaim-delete', target: m[1] };
  return undefined;
}

export function listDisruptions(calls: readonly SimCall[], kubeWrites: readonly KubeWrite[], filter: { cluster?: string; since?: number }): Disruption[] {
  const keep = (at: number, cluster?: string) => (filter.since === undefined || at >= filter.since) && (!filter.cluster || cluster === undefined || cluster === filter.cluster);
  const fromAws = calls
    .filter((c) => DISRUPTIVE_AWS.has(c.operation) && keep(c.at, c.cluster))
    .map((c) => ({ atMs: c.at, cluster: c.cluster, kind: `${c.service} ${c.operation}`, target: c.target }));
  const fromKube = kubeWrites.flatMap((w) => {
    const found = kubeKind(w);
    return found && keep(w.at, w.cluster) ? [{ atMs: w.at, cluster: w.cluster, ...found }] : [];
  });
  return [...fromAws, ...fromKube]
    .sort((a, b) => a.atMs - b.atMs)
    .map(({ atMs, ...rest }) => ({ at: new Date(atMs).toISOString(), ...rest }));
}

/** `since` as the control API takes it: an ISO time or epoch milliseconds of simulated time; a string is the error. */
export function parseSince(value: string | null): number | undefined | string {
  if (value === null || value === '') return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : `since must be a simulated time, ISO (2026-01-01T12:00:00Z) or epoch milliseconds, got "${value}".`;
}
