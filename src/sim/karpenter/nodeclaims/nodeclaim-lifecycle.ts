import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../../kube/kube-store.js';
import type { SimClock } from '../../sim-clock.js';
import type { PlannedClaim } from './claim-planner.js';
import { nodeIsReady } from '../cluster-view.js';
import { instanceTypeNamed } from './instance-types.js';
import { INITIALIZED_LABEL, INSTANCE_TYPE_LABEL, NOT_READY_TAINT, REGISTERED_LABEL, TERMINATION_FINALIZER, UNREGISTERED_TAINT, ZONE_LABEL, CAPACITY_TYPE_LABEL } from '../karpenter-keys.js';
import type { KarpenterTelemetry } from '../karpenter-telemetry.js';
import {
  markLaunched, newNodeClaim, nodeNameFor, randomInstanceId, randomInternalIP, randomSuffix, registeringNode,
} from './nodeclaim-factory.js';
import { cheapestOffering, describeOfferings, offeringsFor, type Offering } from './offerings.js';
import { formatResourceList } from './resource-quantity.js';
import type { Taint } from './scheduling-rules.js';
import { isConditionTrue, refreshRootReady, setCondition } from '../status-conditions.js';

/**
 * A NodeClaim's life from creation to Ready (Karpenter's provisioner + nodeclaim.lifecycle controller + the
 * kubelet): created → Launched (instance and image chosen) → Registered (the Node appears with
 * karpenter.sh/unregistered, which Karpenter removes) → Initialized (kubelet Ready, startup taints gone).
 * Each step is a timer on the sim clock; a step re-reads the claim and quietly stops if it was deleted meanwhile.
 */
export interface LaunchTimings {
  launchMs: [number, number];
  registerMs: [number, number];
  initializeMs: [number, number];
}

export const DEFAULT_LAUNCH_TIMINGS: LaunchTimings = { launchMs: [15_000, 60_000], registerMs: [25_000, 35_000], initializeMs: [15_000, 25_000] };

export interface NodeClaimLauncher {
  create(plan: PlannedClaim, controller: 'provisioner' | 'disruption'): KubeObject;
  /** The offering a claim launches (or launched) on, for planning pods onto claims in flight. */
  offeringOf(claim: KubeObject): Offering | undefined;
  /** Schedules the next step for claims that have none pending (created elsewhere, or after a restart). */
  adopt(claims: KubeObject[]): void;
  /** True while any NodeClaim has its next step scheduled. */
  busy(): boolean;
  stop(): void;
}

export function createNodeClaimLauncher(deps: {
  store: SimKubeStore; clock: SimClock; region: string; random: () => number; telemetry: KarpenterTelemetry;
  clusterMinor: () => string; timings: LaunchTimings;
}): NodeClaimLauncher {
  const { store, clock, telemetry, random } = deps;
  const chosen = new Map<string, Offering>();
  const timers = new Map<string, () => void>();
  const delay = ([min, max]: [number, number]) => Math.round(min + random() * (max - min));

  const schedule = (name: string, ms: number, step: (claim: KubeObject) => void) => {
    timers.get(name)?.();
    timers.set(name, clock.after(ms, () => {
      timers.delete(name);
      const claim = store.get('nodeclaims', name);
      if (!claim || claim.metadata.deletionTimestamp) return;
      try {
        step(claim);
      } catch (error) {
        telemetry.error('failed to advance nodeclaim', 'nodeclaim.lifecycle', { ...telemetry.claimFields(name), error: (error as Error).message });
      }
    }));
  };

  function offeringOf(claim: KubeObject): Offering | undefined {
    const remembered = chosen.get(claim.metadata.name);
    if (remembered) return remembered;
    const pool = store.get('nodepools', claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '');
    if (!pool) return undefined;
    const labels = claim.metadata.labels ?? {};
    const named: string[] = labels[INSTANCE_TYPE_LABEL] ? [labels[INSTANCE_TYPE_LABEL]]
      : (claim.spec?.requirements ?? []).find((r: { key: string }) => r.key === INSTANCE_TYPE_LABEL)?.values ?? [];
    const offerings = offeringsFor(pool, deps.region).filter((o) =>
      named.includes(o.instanceType.name) &&
      (!labels[ZONE_LABEL] || o.zone === labels[ZONE_LABEL]) &&
      (!labels[CAPACITY_TYPE_LABEL] || o.capacityType === labels[CAPACITY_TYPE_LABEL]));
    const offering = cheapestOffering(offerings, random);
    if (offering) chosen.set(claim.metadata.name, offering);
    return offering;
  }

  function launch(claim: KubeObject): void {
    const offering = offeringOf(claim);
    const nodeClass = store.get('ec2nodeclasses', claim.spec?.nodeClassRef?.name ?? '');
    const amd64 = (nodeClass?.status?.amis ?? []).find((ami: { requirements?: Array<{ values?: string[] }> }) =>
      (ami.requirements ?? []).every((r) => !r.values || r.values.includes('amd64')));
    if (!offering || !instanceTypeNamed(offering.instanceType.name) || !amd64) {
      // Karpenter retries a launch that cannot resolve an image or instance type; so does the sim.
      schedule(claim.metadata.name, 10_000, launch);
      return;
    }
    const updated = store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      markLaunched(object, { offering, imageID: amd64.id, providerID: `aws:///${offering.zone}/${randomInstanceId(random)}`, now: clock.now() });
      refreshRootReady(object, ['Launched', 'Registered', 'Initialized'], clock.now());
    });
    telemetry.info('launched nodeclaim', 'nodeclaim.lifecycle', {
      ...telemetry.claimFields(claim.metadata.name),
      'provider-id': updated?.status?.providerID,
      'instance-type': offering.instanceType.name,
      zone: offering.zone,
      'capacity-type': offering.capacityType,
      allocatable: updated?.status?.allocatable,
    });
    schedule(claim.metadata.name, delay(deps.timings.registerMs), register);
  }

  function register(claim: KubeObject): void {
    const offering = offeringOf(claim);
    if (!offering) return;
    const taken = new Set(store.list('nodes').map((n) => n.metadata.name));
    let internalIP = randomInternalIP(random, offering.zone);
    while (taken.has(nodeNameFor(internalIP, deps.region))) internalIP = randomInternalIP(random, offering.zone);
    const nodeName = nodeNameFor(internalIP, deps.region);
    const nodeClass = store.get('ec2nodeclasses', claim.spec?.nodeClassRef?.name ?? '');
    store.create('nodes', registeringNode({
      claim, nodeClass, offering, nodeName, internalIP, region: deps.region, clusterMinor: deps.clusterMinor(), ready: false,
      extraTaints: [UNREGISTERED_TAINT, NOT_READY_TAINT],
    }));
    // Karpenter's registration: take over the node, drop karpenter.sh/unregistered, sync labels.
    store.mutate('nodes', nodeName, undefined, (node) => {
      node.spec.taints = (node.spec.taints ?? []).filter((t: Taint) => t.key !== UNREGISTERED_TAINT.key);
      node.metadata.labels = { ...(node.metadata.labels ?? {}), [REGISTERED_LABEL]: 'true' };
      node.metadata.finalizers = [TERMINATION_FINALIZER];
      node.metadata.ownerReferences = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: claim.metadata.name, uid: claim.metadata.uid, blockOwnerDeletion: true } as never];
    });
    store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      object.status.nodeName = nodeName;
      setCondition(object, { type: 'Registered', status: 'True' }, clock.now());
      setCondition(object, { type: 'Initialized', status: 'Unknown', reason: 'NodeNotReady', message: 'Node status is NotReady' }, clock.now());
      refreshRootReady(object, ['Launched', 'Registered', 'Initialized'], clock.now());
    });
    telemetry.info('registered nodeclaim', 'nodeclaim.lifecycle', {
      ...telemetry.claimFields(claim.metadata.name), 'provider-id': claim.status?.providerID, Node: { name: nodeName },
    });
    schedule(claim.metadata.name, delay(deps.timings.initializeMs), initialize);
  }

  function initialize(claim: KubeObject): void {
    const nodeName: string = claim.status?.nodeName;
    const startupKeys = new Set((claim.spec?.startupTaints ?? []).map((t: Taint) => t.key));
    const node = store.mutate('nodes', nodeName, undefined, (object) => {
      object.spec.taints = (object.spec.taints ?? []).filter((t: Taint) => t.key !== NOT_READY_TAINT.key && !startupKeys.has(t.key));
      if (object.spec.taints.length === 0) delete object.spec.taints;
      object.status.conditions = (object.status.conditions ?? []).map((c: { type: string }) =>
        c.type === 'Ready' ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' } : c);
      object.metadata.labels = { ...(object.metadata.labels ?? {}), [INITIALIZED_LABEL]: 'true' };
    });
    if (!node || !nodeIsReady(node)) return;
    store.mutate('nodeclaims', claim.metadata.name, undefined, (object) => {
      setCondition(object, { type: 'Initialized', status: 'True' }, clock.now());
      refreshRootReady(object, ['Launched', 'Registered', 'Initialized'], clock.now());
    });
    telemetry.info('initialized nodeclaim', 'nodeclaim.lifecycle', {
      ...telemetry.claimFields(claim.metadata.name), 'provider-id': claim.status?.providerID, Node: { name: nodeName }, allocatable: node.status?.allocatable,
    });
  }

  return {
    offeringOf,
    create(plan, controller) {
      const offering = cheapestOffering(plan.offerings, random)!;
      let name = `${plan.pool.nodePool.metadata.name}-${randomSuffix(random)}`;
      while (store.get('nodeclaims', name)) name = `${plan.pool.nodePool.metadata.name}-${randomSuffix(random)}`;
      const claim = store.create('nodeclaims', newNodeClaim({
        name, nodePool: plan.pool.nodePool, nodeClass: plan.pool.nodeClass, offerings: plan.offerings, requests: plan.requests, now: clock.now(),
      }));
      chosen.set(name, offering);
      telemetry.info('created nodeclaim', controller, {
        NodePool: { name: plan.pool.nodePool.metadata.name }, NodeClaim: { name },
        requests: formatResourceList(plan.requests), 'instance-types': describeOfferings(plan.offerings),
      });
      schedule(name, delay(deps.timings.launchMs), launch);
      return claim;
    },
    adopt(claims) {
      for (const claim of claims) {
        const name = claim.metadata.name;
        if (timers.has(name) || claim.metadata.deletionTimestamp || isConditionTrue(claim, 'Initialized')) continue;
        if (!isConditionTrue(claim, 'Launched')) schedule(name, delay(deps.timings.launchMs), launch);
        else if (!isConditionTrue(claim, 'Registered')) schedule(name, delay(deps.timings.registerMs), register);
        else schedule(name, delay(deps.timings.initializeMs), initialize);
      }
    },
    busy: () => timers.size > 0,
    stop() {
      for (const cancel of timers.values()) cancel();
      timers.clear();
    },
  };
}
