/**
 * The Kubernetes calls this product makes against one cluster. The real implementation
 * (src/kube/client-node-adapter.ts) wraps @kubernetes/client-node with an EKS bearer token; tests point it at the
 * simulator's Kubernetes API over HTTP. Objects are plain JSON as the apiserver returns them (client-node's
 * V1Node, V1Pod … types fit them).
 */

import type { KubeObject } from '../kube-types/kube-object.js';

export type { KubeObject };

export type KubeResource =
  | 'namespaces'
  | 'nodes'
  | 'pods'
  | 'events'
  | 'persistentvolumeclaims'
  | 'deployments'
  | 'statefulsets'
  | 'daemonsets'
  | 'replicasets'
  | 'poddisruptionbudgets'
  | 'horizontalpodautoscalers'
  | 'nodepools'
  | 'nodeclaims'
  | 'ec2nodeclasses';

export interface ListOptions {
  namespace?: string; // omitted: all namespaces (or cluster-scoped)
  labelSelector?: string;
  fieldSelector?: string;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  items: T[];
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface KubeWatchHandle {
  stop(): void;
}

export type PatchType = 'merge' | 'strategic' | 'json';

/** Failure of a Kubernetes call, with the HTTP code and the Status reason/message of the apiserver. */
export class KubeApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly reason?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KubeApiError';
  }
}

export interface KubePort {
  /** gitVersion of the apiserver, e.g. v1.30.14-eks-f69f56f. */
  serverVersion(): Promise<string>;
  list<T extends KubeObject = KubeObject>(resource: KubeResource, options?: ListOptions): Promise<KubeList<T>>;
  /** undefined when the object does not exist (404). */
  get<T extends KubeObject = KubeObject>(resource: KubeResource, name: string, namespace?: string): Promise<T | undefined>;
  patch<T extends KubeObject = KubeObject>(
    resource: KubeResource,
    name: string,
    patch: unknown,
    options: { namespace?: string; type: PatchType },
  ): Promise<T>;
  /** POST …/pods/{name}/eviction. A PDB refusal throws KubeApiError with code 429. */
  evictPod(namespace: string, name: string): Promise<void>;
  /**
   * DELETE …/pods/{name}, which PodDisruptionBudgets do not guard (like `kubectl delete pod`): what Force does to a
   * drain blocked by a PDB. A pod already gone (404) is not an error.
   */
  deletePod(namespace: string, name: string): Promise<void>;
  /**
   * Lists then watches, re-listing on 410 Expired and reconnecting with backoff on other errors, until stop().
   * onSynced is called after each (re)list with the full current set.
   */
  watch<T extends KubeObject = KubeObject>(
    resource: KubeResource,
    options: ListOptions,
    handlers: {
      onEvent(type: WatchEventType, object: T): void;
      onSynced?(items: T[]): void;
      onError?(error: Error): void;
    },
  ): Promise<KubeWatchHandle>;
}

/** Builds a KubePort for a cluster from its DescribeCluster endpoint and CA, with a refreshed EKS token. */
export type KubePortFactory = (cluster: { name: string; region: string; roleArn?: string }) => Promise<KubePort>;
