import type { KubeObject } from '../../kube-types/kube-object.js';
import { seedKarpenterNodes } from '../karpenter/index.js';
import type { ScenarioCluster } from '../scenario/scenario-schema.js';
import type { SimCluster, SimWorld } from './world-types.js';

/**
 * The Karpenter objects a scenario starts with: NodePools and EC2NodeClasses as written, and the nodes Karpenter
 * had already launched (a NodeClaim plus its Node each, made by the Karpenter sim's own seeder so they look exactly
 * like the ones it launches later). The Karpenter controller takes over from there.
 */
export function seedKarpenter(world: SimWorld, cluster: SimCluster, spec: NonNullable<ScenarioCluster['karpenter']>): void {
  for (const nodeClass of spec.ec2NodeClasses) cluster.store.create('ec2nodeclasses', structuredClone(nodeClass) as KubeObject);
  for (const nodePool of spec.nodePools) cluster.store.create('nodepools', structuredClone(nodePool) as KubeObject);
  for (const node of spec.nodes) {
    if (!cluster.store.get('nodepools', node.nodePool)) {
      throw new Error(`scenario cluster ${cluster.name}: karpenter.nodes names NodePool "${node.nodePool}", which the scenario does not define`);
    }
    seedKarpenterNodes(cluster.store, {
      nodePool: node.nodePool,
      count: 1,
      region: cluster.region,
      clusterVersion: cluster.version,
      now: world.clock.now(),
      instanceType: node.instanceType,
      zones: [node.zone],
      capacityType: node.capacityType,
      imageId: node.imageId,
      random: world.random,
    });
  }
}
