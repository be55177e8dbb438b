import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import type { NodeSlot, PlannedClaim } from './nodeclaims/claim-planner.js';
import { DISRUPTED_TAINT, INITIALIZED_LABEL, NODEPOOL_LABEL } from './karpenter-keys.js';
import { nodeClassReady } from './nodeclass-status.js';
import { offeringsFor, type Offering, type PoolOptions } from './nodeclaims/offerings.js';
import { isDeleting, isPending, occupiesNode, podRequests } from './nodeclaims/pod-facts.js';
import { addResources, NO_RESOURCES, readResourceList, subtractResources } from './nodeclaims/resource-quantity.js';
import type { Taint } from './nodeclaims/scheduling-rules.js';
import { isConditionTrue } from './status-conditions.js';

/**
 * One consistent read of everything Karpenter's decisions depend on (its "cluster state"): NodePools, node classes,
 * NodeClaims joined to their Nodes and pods, pending pods and PDBs. Decisions are pure functions of this view.
 */
export interface ManagedNode {
  claim: KubeObject;
  node?: KubeObject;
  pool: string;
  initialized: boolean;
  ready: boolean;
  deleting: boolean;
  disruptedTaint: boolean;
  pods: KubeObject[];
}

export interface ClusterView {
  now: number;
  nodePools: KubeObject[];
  nodeClasses: Map<string, KubeObject>;
  managed: ManagedNode[];
  nodes: KubeObject[];
  podsByNode: Map<string, KubeObject[]>;
  pendingPods: KubeObject[];
  pdbs: KubeObject[];
  daemonSets: KubeObject[];
}

export function hasTaint(node: KubeObject | undefined, key: string): boolean {
  return (node?.spec?.taints ?? []).some((taint: Taint) => taint.key === key);
}

export function nodeIsReady(node: KubeObject | undefined): boolean {
  return (node?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
}

export function readClusterView(store: SimKubeStore, now: number): ClusterView {
  // The store's own frozen objects: decisions only read them, and copying every pod on every pass (each 16 ms of real
  // time at --speed 600) was most of the simulator's CPU.
  const nodes = [...store.read('nodes')];
  const podsByNode = new Map<string, KubeObject[]>();
  const pendingPods: KubeObject[] = [];
  for (const pod of store.read('pods')) {
    if (occupiesNode(pod)) {
      const list = podsByNode.get(pod.spec.nodeName) ?? [];
      list.push(pod);
      podsByNode.set(pod.spec.nodeName, list);
    } else if (isPending(pod)) {
      pendingPods.push(pod);
    }
  }
  const nodesByName = new Map(nodes.map((node) => [node.metadata.name, node]));
  const nodesByProvider = new Map(nodes.filter((n) => n.spec?.providerID).map((node) => [node.spec.providerID as string, node]));
  const managed = store.read('nodeclaims').map((claim): ManagedNode => {
    const node = (claim.status?.nodeName && nodesByName.get(claim.status.nodeName)) ||
      (claim.status?.providerID ? nodesByProvider.get(claim.status.providerID) : undefined);
    return {
      claim,
      node: node || undefined,
      pool: claim.metadata.labels?.[NODEPOOL_LABEL] ?? '',
      initialized: isConditionTrue(claim, 'Initialized') || node?.metadata.labels?.[INITIALIZED_LABEL] === 'true',
      ready: nodeIsReady(node || undefined),
      deleting: isDeleting(claim) || (node ? isDeleting(node) : false),
      disruptedTaint: hasTaint(node || undefined, DISRUPTED_TAINT.key),
      pods: node ? podsByNode.get(node.metadata.name) ?? [] : [],
    };
  });
  return {
    now,
    nodePools: store.read('nodepools').filter((pool) => !isDeleting(pool)),
    nodeClasses: new Map(store.read('ec2nodeclasses').map((nc) => [nc.metadata.name, nc])),
    managed,
    nodes,
    podsByNode,
    pendingPods,
    pdbs: [...store.read('poddisruptionbudgets')],
    daemonSets: [...store.read('daemonsets')],
  };
}

/** Pools that can launch now (node class exists and is Ready), heaviest weight first, as Karpenter orders them. */
export function launchablePools(view: ClusterView, region: string): PoolOptions[] {
  return view.nodePools
    .map((nodePool) => ({ nodePool, nodeClass: view.nodeClasses.get(nodePool.spec?.template?.spec?.nodeClassRef?.name ?? '') }))
    .filter((p): p is { nodePool: KubeObject; nodeClass: KubeObject } => nodeClassReady(p.nodeClass))
    .sort((a, b) => (b.nodePool.spec?.weight ?? 0) - (a.nodePool.spec?.weight ?? 0) || a.nodePool.metadata.name.localeCompare(b.nodePool.metadata.name))
    .map(({ nodePool, nodeClass }) => ({
      nodePool,
      nodeClass,
      taints: nodePool.spec?.template?.spec?.taints ?? [],
      offerings: offeringsFor(nodePool, region, undefined, view.daemonSets),
    }));
}

/** Nodes the scheduler may place pods on now, with the room left on each. */
export function schedulableSlots(view: ClusterView): NodeSlot[] {
  return view.nodes
    .filter((node) => !isDeleting(node) && !node.spec?.unschedulable && nodeIsReady(node))
    .map((node) => {
      const used = (view.podsByNode.get(node.metadata.name) ?? []).reduce(
        (total, pod) => {
          const r = podRequests(pod);
          return { cpu: total.cpu + r.cpu, memory: total.memory + r.memory, pods: total.pods + 1 };
        },
        { cpu: 0, memory: 0, pods: 0 },
      );
      return {
        name: node.metadata.name,
        labels: node.metadata.labels ?? {},
        taints: node.spec?.taints ?? [],
        remaining: subtractResources(readResourceList(node.status?.allocatable ?? node.status?.capacity), used),
      };
    });
}

/** NodeClaims still on their way (not initialized, not deleting) as plan entries pending pods can join. */
export function inFlightClaims(view: ClusterView, pools: PoolOptions[], offeringOf: (claim: KubeObject) => Offering | undefined): PlannedClaim[] {
  const planned: PlannedClaim[] = [];
  for (const managed of view.managed) {
    if (managed.initialized || managed.deleting) continue;
    const pool = pools.find((p) => p.nodePool.metadata.name === managed.pool);
    const chosen = offeringOf(managed.claim);
    // The pool's own copy of the offering carries the DaemonSet overhead.
    const offering = chosen && pool?.offerings.find((o) =>
      o.instanceType.name === chosen.instanceType.name && o.zone === chosen.zone && o.capacityType === chosen.capacityType);
    if (!pool || !offering) continue;
    planned.push({
      pool,
      offerings: [offering],
      pods: [],
      requests: managed.pods.reduce((total, pod) => addResources(total, podRequests(pod)), NO_RESOURCES),
      existingName: managed.claim.metadata.name,
    });
  }
  return planned;
}
