import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import { minorOf, resolveAmis } from './ami-resolution.js';
import { NO_RESOURCES } from './nodeclaims/resource-quantity.js';
import { INITIALIZED_LABEL, REGISTERED_LABEL } from './karpenter-keys.js';
import {
  markLaunched, newNodeClaim, nodeNameFor, randomInstanceId, randomInternalIP, randomSuffix, registeringNode,
} from './nodeclaims/nodeclaim-factory.js';
import { offeringsFor } from './nodeclaims/offerings.js';
import { seededRandom } from './seeded-random.js';
import { refreshRootReady, setCondition } from './status-conditions.js';

/**
 * Creates NodeClaims and their Nodes for a NodePool as if Karpenter had provisioned and initialized them earlier
 * (for scenarios and tests). The NodePool and its EC2NodeClass must already be in the store. Nodes get the image
 * the node class resolves to for `clusterVersion` unless `imageId` pins an older one.
 */
export interface SeedKarpenterNodesOptions {
  nodePool: string;
  count: number;
  region: string;
  clusterVersion: string;
  /** Sim time the nodes were initialized at (conditions' lastTransitionTime). */
  now: number;
  instanceType?: string;
  zones?: string[];
  capacityType?: 'on-demand' | 'spot';
  imageId?: string;
  random?: () => number;
}

export function seedKarpenterNodes(store: SimKubeStore, opts: SeedKarpenterNodesOptions): Array<{ nodeClaim: KubeObject; node: KubeObject }> {
  const random = opts.random ?? seededRandom(`karpenter-seed/${store.clusterName}/${opts.nodePool}`);
  const nodePool = store.get('nodepools', opts.nodePool);
  if (!nodePool) throw new Error(`seeding Karpenter nodes: NodePool "${opts.nodePool}" is not in cluster ${store.clusterName}; create it first`);
  const nodeClassName = nodePool.spec?.template?.spec?.nodeClassRef?.name ?? '';
  const nodeClass = store.get('ec2nodeclasses', nodeClassName);
  if (!nodeClass) throw new Error(`seeding Karpenter nodes: EC2NodeClass "${nodeClassName}" of NodePool ${opts.nodePool} is not in the store; create it first`);
  const minor = minorOf(opts.clusterVersion);
  const imageID = opts.imageId ?? resolveAmis(nodeClass.spec?.amiSelectorTerms, minor)[0]?.id;
  if (!imageID) throw new Error(`seeding Karpenter nodes: EC2NodeClass "${nodeClassName}" resolves no AMI for Kubernetes ${minor}; give imageId`);
  const offerings = offeringsFor(nodePool, opts.region).filter((o) =>
    (!opts.instanceType || o.instanceType.name === opts.instanceType) && o.capacityType === (opts.capacityType ?? o.capacityType));
  if (offerings.length === 0) throw new Error(`seeding Karpenter nodes: NodePool ${opts.nodePool} cannot launch ${opts.instanceType ?? 'any known instance type'}`);
  const cheapestType = [...offerings].sort((a, b) => a.price - b.price)[0].instanceType.name;
  const zones = opts.zones ?? [...new Set(offerings.map((o) => o.zone))];
  const seeded: Array<{ nodeClaim: KubeObject; node: KubeObject }> = [];
  for (let i = 0; i < opts.count; i++) {
    const zone = zones[i % zones.length];
    const offering = offerings.find((o) => o.instanceType.name === cheapestType && o.zone === zone) ?? offerings[0];
    let name = `${opts.nodePool}-${randomSuffix(random)}`;
    while (store.get('nodeclaims', name)) name = `${opts.nodePool}-${randomSuffix(random)}`;
    const claim = newNodeClaim({ name, nodePool, nodeClass, offerings: [offering], requests: NO_RESOURCES, now: opts.now });
    markLaunched(claim, { offering, imageID, providerID: `aws:///${offering.zone}/${randomInstanceId(random)}`, now: opts.now });
    let internalIP = randomInternalIP(random, offering.zone);
    while (store.get('nodes', nodeNameFor(internalIP, opts.region))) internalIP = randomInternalIP(random, offering.zone);
    const nodeName = nodeNameFor(internalIP, opts.region);
    claim.status.nodeName = nodeName;
    for (const type of ['Registered', 'Initialized']) setCondition(claim, { type, status: 'True' }, opts.now);
    refreshRootReady(claim, ['Launched', 'Registered', 'Initialized'], opts.now);
    const created = store.create('nodeclaims', claim);
    const node = registeringNode({ claim: created, nodeClass, offering, nodeName, internalIP, region: opts.region, clusterMinor: minor, ready: true, extraTaints: [] });
    node.metadata.labels = { ...node.metadata.labels, [REGISTERED_LABEL]: 'true', [INITIALIZED_LABEL]: 'true' };
    seeded.push({ nodeClaim: created, node: store.create('nodes', node) });
  }
  return seeded;
}
