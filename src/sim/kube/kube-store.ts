/**
 * Contract between the simulator's Kubernetes API (src/sim/kube/, which implements it) and the simulated AWS
 * controllers (src/sim/aws/: managed node groups, Karpenter, Fargate), which create nodes and pods, cordon,
 * drain and delete through it. One store per simulated cluster. Objects are plain Kubernetes JSON.
 *
 * Resource keys are plural names ("nodes", "pods", "deployments", "poddisruptionbudgets", "events",
 * "nodepools", "nodeclaims", "ec2nodeclasses", …), as in the URL.
 */

import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimClock } from '../sim-clock.js';
import type { RandomSource } from './objects/kube-names.js';
import type { KubeStatus } from './api/kube-status.js';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  resource: string;
  object: KubeObject;
}

export interface EvictionResult {
  ok: boolean;
  /** HTTP code Kubernetes would answer: 201 ok, 429 PDB violation, 500 more than one PDB, 404 no such pod. */
  code: number;
  message: string;
  /** Status details.causes as the apiserver sends them (429: [{reason: "DisruptionBudget", message: "The disruption budget orders-pdb needs 1 healthy pods and has 1 currently"}]). */
  causes?: Array<{ reason: string; message: string }>;
  /** "<namespace>/<name>" of the PDB that refused the eviction (429 only). */
  disruptionBudget?: string;
}

export interface SimKubeStore {
  readonly clusterName: string;
  /** The apiserver's gitVersion (changes when EKS upgrades the control plane), e.g. v1.30.14-eks-f69f56f. */
  gitVersion: string;

  list(resource: string, namespace?: string): KubeObject[];
  get(resource: string, name: string, namespace?: string): KubeObject | undefined;
  /**
   * Like list and get, without copying: the store's own frozen objects, in list's order (writing to one throws;
   * write through mutate). For controllers' read-only passes at high --speed, where copying every pod on every pass
   * took most of the simulator's CPU.
   */
  read(resource: string, namespace?: string): readonly KubeObject[];
  readOne(resource: string, name: string, namespace?: string): KubeObject | undefined;
  /** Assigns uid, resourceVersion, creationTimestamp; throws SimKubeError(409 AlreadyExists) on duplicates. */
  create(resource: string, object: KubeObject): KubeObject;
  /** Replaces the object (bumps resourceVersion). Throws SimKubeError(404) when absent. */
  update(resource: string, object: KubeObject): KubeObject;
  /** Read-modify-write helper used by controllers. */
  mutate(resource: string, name: string, namespace: string | undefined, change: (object: KubeObject) => void): KubeObject | undefined;
  /** Deletes at once (no finalizer handling for pods; finalizers honoured for nodeclaims by the Karpenter sim). */
  delete(resource: string, name: string, namespace?: string): KubeObject | undefined;
  /** The eviction subresource with Kubernetes' PDB arithmetic and answers. */
  evict(namespace: string, name: string): EvictionResult;
  /** Records a core/v1 Event (involvedObject, reason, message, type, source component). */
  recordEvent(event: { namespace?: string; involvedObject: { kind: string; name: string; namespace?: string; uid?: string }; reason: string; message: string; type?: 'Normal' | 'Warning'; component?: string }): void;
  /** Subscribe to every change; returns an unsubscribe function. Used by controllers and the watch endpoint. */
  subscribe(listener: (event: StoreEvent) => void): () => void;
  /** Current resourceVersion of the whole store (monotonic integer as a string). */
  resourceVersion(): string;
}

export class SimKubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimKubeError';
  }
}

/** One change, with the revision it happened at and (for MODIFIED/DELETED) the object before it. */
export interface HistoryRecord extends StoreEvent {
  rv: number;
  oldObject?: KubeObject;
}

export interface SimKubeStoreImpl extends SimKubeStore {
  readonly clock: SimClock;
  readonly random: RandomSource;
  /** Whether writes of Karpenter's custom resources are checked against their CRD schema (default true). */
  readonly validatesCustomResources: boolean;
  /** Changes after `rv`, or 'expired' when the history no longer reaches back that far (watch answers 410). */
  historySince(rv: number): HistoryRecord[] | 'expired';
  /** Forgets the history (as etcd compaction does), so watches from older resourceVersions get 410 Expired. */
  compactHistory(): void;
  /** Like subscribe, with the frozen record itself (no copy): for the watch endpoint and built-in controllers. */
  subscribeRecords(listener: (record: HistoryRecord) => void): () => void;
  /** Pod deletion as the kubelet does it: Terminating (deletionTimestamp) for a short shutdown, then gone. */
  deleteGracefully(resource: string, name: string, namespace: string | undefined, gracePeriodSeconds?: number): KubeObject | undefined;
  /** The eviction subresource's full answer (Status body and HTTP code). */
  evictStatus(namespace: string, name: string): KubeStatus;
  /** The stored (frozen, read-only) objects of a resource, unsorted and uncopied: for hot read-only paths. */
  peek(resource: string): readonly KubeObject[];
}
