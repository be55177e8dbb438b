import type { KubeObject } from '../../ports/kube-port.js';
import { isCustomAmiNodegroup, nodeClassAmi, type NodeClassAmi } from '../deciders/ami-parameters.js';
import { archesOfNodePool, decideAmiAction, type AmiAction } from '../deciders/decide-ami-action.js';
import { valueOr, type ClusterSnapshot, type NodegroupInfo } from '../cluster-snapshot.js';
import { computeGroups, kubeletOf, type ComputeType } from '../compute-groups.js';
import { nodePoolsOfClass } from '../checks/karpenter/karpenter-checks.js';
import { compareMinor, parseMinor } from '../../domain/minor-version.js';
import { kubeletMinor } from '../upgrade-path.js';

/**
 * The data plane as units the plan upgrades one at a time: each managed node group, each EC2NodeClass (with the
 * NodePools that use it — the AMI lives on the class), each self-managed group, and Fargate as a whole. `minor` is
 * the oldest kubelet minor among its nodes (what the skew policy is about).
 */
export interface DataPlaneUnit {
  type: ComputeType;
  name: string;
  ref: string;
  /** Oldest kubelet minor of its nodes (a node group without nodes: its version). */
  minor?: string;
  /**
   * Newest kubelet minor of its nodes, when its nodes run more than one (an upgrade stopped half-way, e.g. by a
   * guard's breach): a rollback brings the unit back while any node is newer than the target.
   */
  newest?: string;
  nodes: number;
  nodegroup?: NodegroupInfo;
  customAmi?: boolean;
  nodeClass?: KubeObject;
  ami?: NodeClassAmi;
  /** What the EC2NodeClass needs for a target minor: the same decider the Karpenter step runs. */
  amiAction?: (target: string) => AmiAction;
  nodePools?: KubeObject[];
  sampleNode?: KubeObject;
}

function newestMinor(nodes: KubeObject[]): { newest?: string } {
  const minors = nodes.map((node) => kubeletMinor(kubeletOf(node))).filter((m): m is string => !!m);
  const sorted = [...new Set(minors)].sort((a, b) => compareMinor(parseMinor(a)!, parseMinor(b)!));
  return sorted.length > 1 ? { newest: sorted.at(-1)! } : {};
}

function oldestMinor(nodes: KubeObject[]): string | undefined {
  const minors = nodes.map((node) => kubeletMinor(kubeletOf(node))).filter((m): m is string => !!m);
  return minors.sort((a, b) => compareMinor(parseMinor(a)!, parseMinor(b)!))[0];
}

export function dataPlaneUnits(snapshot: ClusterSnapshot): DataPlaneUnit[] {
  const groups = computeGroups(snapshot);
  const units: DataPlaneUnit[] = [];
  const nodegroups = new Map(valueOr(snapshot.nodegroups, []).map((ng) => [ng.name, ng]));
  for (const group of groups.filter((g) => g.type === 'managed-nodegroup')) {
    const ng = nodegroups.get(group.name);
    units.push({
      type: 'managed-nodegroup',
      name: group.name,
      ref: `nodegroup/${group.name}`,
      minor: oldestMinor(group.nodes) ?? ng?.version,
      ...newestMinor(group.nodes),
      nodes: group.nodes.length || ng?.scaling.desired || 0,
      nodegroup: ng,
      customAmi: ng ? isCustomAmiNodegroup(ng) : false,
    });
  }
  const karpenter = valueOr(snapshot.kube.karpenter, undefined);
  if (karpenter) {
    const poolGroups = new Map(groups.filter((g) => g.type === 'karpenter').map((g) => [g.name, g]));
    for (const nodeClass of karpenter.nodeClasses) {
      const pools = nodePoolsOfClass(karpenter.nodePools, nodeClass.metadata.name);
      const nodes = pools.flatMap((pool) => poolGroups.get(pool.metadata.name)?.nodes ?? []);
      units.push({
        type: 'karpenter',
        name: nodeClass.metadata.name,
        ref: `ec2nodeclass/${nodeClass.metadata.name}`,
        minor: oldestMinor(nodes),
        ...newestMinor(nodes),
        nodes: nodes.length,
        nodeClass,
        ami: nodeClassAmi(nodeClass),
        amiAction: (target) => decideAmiAction(nodeClass, { target, arches: [...new Set(pools.flatMap((pool) => archesOfNodePool(pool, poolGroups.get(pool.metadata.name)?.nodes ?? [])))].sort() }),
        nodePools: pools,
        sampleNode: nodes[0],
      });
    }
  }
  for (const group of groups.filter((g) => g.type === 'self-managed' && g.nodes.length > 0)) {
    units.push({ type: 'self-managed', name: group.name, ref: `selfmanaged/${group.name}`, minor: oldestMinor(group.nodes), ...newestMinor(group.nodes), nodes: group.nodes.length, sampleNode: group.nodes[0] });
  }
  const fargateNodes = groups.filter((g) => g.type === 'fargate').flatMap((g) => g.nodes);
  if (fargateNodes.length > 0) {
    units.push({ type: 'fargate', name: 'fargate', ref: 'fargate', minor: oldestMinor(fargateNodes), nodes: fargateNodes.length });
  }
  return units;
}

/**
 * Whether the unit's upgrade can be held back to a later hop: Karpenter classes on an alias drift by themselves
 * after each control-plane upgrade, so only budgets (not the plan) could hold them.
 */
export function canDefer(unit: DataPlaneUnit): boolean {
  return !(unit.type === 'karpenter' && unit.amiAction?.(unit.minor ?? '').kind === 'follows-version');
}
