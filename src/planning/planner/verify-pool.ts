import type { KubeObject } from '../../ports/kube-port.js';
import { kubeletMinorOf, poolOfNode } from '../karpenter-objects.js';

/**
 * The end check of one NodePool (pure): every node of the pool runs the target kubelet, and every pod of the
 * workloads that live on the pool is Running — the pods on its nodes, and their siblings (same controller) that
 * have not found a node yet, so a replica left Pending by the rollout is caught too. DaemonSet pods are checked
 * on the pool's nodes only (their siblings run everywhere).
 */
export interface PoolVerification {
  pool: string;
  nodes: number;
  nodesBehind: string[];
  pods: number;
  podsNotRunning: string[];
}

const nameOf = (pod: KubeObject) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;

function controllerOf(pod: KubeObject): { kind: string; name: string; uid?: string } | undefined {
  return pod.metadata.ownerReferences?.find((ref) => ref.controller) ?? pod.metadata.ownerReferences?.[0];
}

function isSettled(pod: KubeObject): boolean {
  return pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded';
}

export function verifyPool(input: { pool: string; nodes: KubeObject[]; pods: KubeObject[]; target: string }): PoolVerification {
  const poolNodes = input.nodes.filter((node) => poolOfNode(node) === input.pool && !node.metadata.deletionTimestamp);
  const nodeNames = new Set(poolNodes.map((node) => node.metadata.name));
  const live = input.pods.filter((pod) => !pod.metadata.deletionTimestamp);
  const onPool = live.filter((pod) => nodeNames.has(pod.spec?.nodeName));
  const owners = new Set<string>();
  for (const pod of onPool) {
    const owner = controllerOf(pod);
    if (owner && owner.kind !== 'DaemonSet') owners.add(`${pod.metadata.namespace}/${owner.kind}/${owner.uid ?? owner.name}`);
  }
  const checked = live.filter((pod) => {
    if (nodeNames.has(pod.spec?.nodeName)) return true;
    const owner = controllerOf(pod);
    return !!owner && owners.has(`${pod.metadata.namespace}/${owner.kind}/${owner.uid ?? owner.name}`);
  });
  return {
    pool: input.pool,
    nodes: poolNodes.length,
    nodesBehind: poolNodes
      .filter((node) => kubeletMinorOf(node) !== input.target)
      .map((node) => `${node.metadata.name} (${node.status?.nodeInfo?.kubeletVersion ?? 'no kubelet version'})`)
      .sort(),
    pods: checked.length,
    podsNotRunning: checked
      .filter((pod) => !isSettled(pod))
      .map((pod) => `${nameOf(pod)} (${pod.status?.phase ?? 'no phase'}${pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ', not scheduled'})`)
      .sort(),
  };
}

export function isVerified(verification: PoolVerification): boolean {
  return verification.nodesBehind.length === 0 && verification.podsNotRunning.length === 0;
}

/** "2 nodes at 1.31, 11 pods Running" or what is wrong, for the step summary and warnings. */
export function describeVerification(verification: PoolVerification, target: string): string {
  const parts = [`${verification.nodes - verification.nodesBehind.length}/${verification.nodes} node(s) at ${target}`];
  parts.push(`${verification.pods - verification.podsNotRunning.length}/${verification.pods} pod(s) Running`);
  const problems: string[] = [];
  if (verification.nodesBehind.length) problems.push(`behind: ${verification.nodesBehind.slice(0, 10).join(', ')}`);
  if (verification.podsNotRunning.length) problems.push(`not Running: ${verification.podsNotRunning.slice(0, 10).join(', ')}`);
  return problems.length ? `${parts.join(', ')} — ${problems.join('; ')}` : parts.join(', ');
}
