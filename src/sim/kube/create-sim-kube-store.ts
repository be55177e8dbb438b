import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimClock } from '../sim-clock.js';
import { applyDefaults } from './objects/apply-defaults.js';
import { cloneJson, deepEqual, deepFreeze } from './objects/deep-equal.js';
import { evictPod } from './api/evict-pod.js';
import { deleteGracefully } from './api/graceful-delete.js';
import { randomSuffix, randomUid, type RandomSource } from './objects/kube-names.js';
import { recordEvent } from './controllers/record-event.js';
import { SimKubeError, type EvictionResult, type HistoryRecord, type SimKubeStore, type SimKubeStoreImpl, type StoreEvent } from './kube-store.js';
import { isoSeconds } from './iso-seconds.js';
import type { KubeStatus } from './api/kube-status.js';
import { apiVersionOf, resourceType, RESOURCES, type ResourceType } from './objects/resource-registry.js';

/**
 * The in-memory object store behind one simulated cluster's apiserver: objects per resource, a cluster-wide
 * resourceVersion counter (as etcd's revision), and a bounded history of changes that watches replay from.
 * Objects kept here are frozen; callers always get copies.
 */

export type { HistoryRecord, SimKubeStoreImpl } from './kube-store.js';
export { isoSeconds } from './iso-seconds.js';

export interface SimKubeStoreOptions {
  clusterName: string;
  gitVersion: string;
  clock: SimClock;
  /** Random source for uids and name suffixes; inject a seeded one for reproducible runs. */
  random?: RandomSource;
  /** How many changes watches can replay (default 5000). */
  historyLimit?: number;
  /**
   * How long a change stays replayable, in wall-clock ms (etcd compacts every 5 minutes on EKS: kube-apiserver
   * --etcd-compaction-interval). Undefined: changes expire only by count.
   */
  historyWindowMs?: number;
  /** Check NodePool and EC2NodeClass writes against their CRD schema (default true). */
  validateCustomResources?: boolean;
  /** The wall clock compaction runs on (default Date.now). */
  wallNow?: () => number;
  /** When the cluster was created (epoch ms; default now): the age of its built-in namespaces. */
  createdAt?: number;
}

/** Namespaces every cluster has from the start (default cannot even be deleted on a real one). */
export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

export function createSimKubeStore(opts: SimKubeStoreOptions): SimKubeStoreImpl {
  const { clock } = opts;
  const random = opts.random ?? Math.random;
  const historyLimit = opts.historyLimit ?? 5000;
  const objects = new Map<string, Map<string, KubeObject>>(RESOURCES.map((t) => [t.plural, new Map()]));
  let revision = 0;
  let compactedRv = 0;
  let history: HistoryRecord[] = [];
  /** Wall-clock time of each history record, same index. */
  let recordedAt: number[] = [];
  const wallNow = opts.wallNow ?? Date.now;
  // etcd compaction by age: every revision older than the window is gone, so resuming from one answers 410.
  const compactByAge = () => {
    if (opts.historyWindowMs === undefined) return;
    const horizon = wallNow() - opts.historyWindowMs;
    let drop = 0;
    while (drop < history.length && recordedAt[drop] < horizon) drop++;
    if (drop === 0) return;
    compactedRv = history[drop - 1].rv;
    history = history.slice(drop);
    recordedAt = recordedAt.slice(drop);
  };
  const listeners = new Set<(record: HistoryRecord) => void>();
  const pending: HistoryRecord[] = [];
  let dispatching = false;

  const requireType = (resource: string): ResourceType => {
    const type = resourceType(resource);
    if (!type) throw new SimKubeError(404, 'NotFound', `the server doesn't have a resource type "${resource}"`);
    return type;
  };
  const keyOf = (type: ResourceType, name: string, namespace?: string) => (type.namespaced ? `${namespace ?? 'default'}/${name}` : name);
  const bucket = (type: ResourceType) => objects.get(type.plural)!;
  const qualified = (type: ResourceType) => (type.group ? `${type.plural}.${type.group}` : type.plural);

  // Listeners run one change at a time, in revision order, even when a listener writes to the store.
  function emit(type: StoreEvent['type'], resource: string, object: KubeObject, oldObject?: KubeObject): void {
    const record: HistoryRecord = deepFreeze({ type, resource, object, rv: revision, ...(oldObject ? { oldObject } : {}) });
    history.push(record);
    recordedAt.push(wallNow());
    if (history.length > historyLimit) {
      compactedRv = history.shift()!.rv;
      recordedAt.shift();
    }
    compactByAge();
    pending.push(record);
    if (dispatching) return;
    dispatching = true;
    try {
      while (pending.length) {
        const next = pending.shift()!;
        for (const listener of [...listeners]) {
          try {
            listener(next);
          } catch (error) {
            console.error(`sim kube store: a listener failed on ${next.type} ${next.resource}`, error);
          }
        }
      }
    } finally {
      dispatching = false;
    }
  }

  function normalize(type: ResourceType, object: KubeObject): void {
    object.apiVersion = apiVersionOf(type);
    object.kind = type.kind;
  }

  function ensureNamespace(namespace: string): void {
    if (bucket(requireType('namespaces')).has(namespace)) return;
    store.create('namespaces', { metadata: { name: namespace } });
  }

  function remove(type: ResourceType, key: string, existing: KubeObject): KubeObject {
    bucket(type).delete(key);
    revision++;
    const gone = cloneJson(existing);
    gone.metadata.resourceVersion = String(revision);
    emit('DELETED', type.plural, deepFreeze(gone), existing);
    return cloneJson(gone);
  }

  const store: SimKubeStoreImpl = {
    validatesCustomResources: opts.validateCustomResources !== false,
    clusterName: opts.clusterName,
    gitVersion: opts.gitVersion,
    clock,
    random,

    list(resource, namespace) {
      return store.read(resource, namespace).map((o) => cloneJson(o));
    },

    get(resource, name, namespace) {
      const found = store.readOne(resource, name, namespace);
      return found ? cloneJson(found) : undefined;
    },

    read(resource, namespace) {
      const type = requireType(resource);
      const items = [...bucket(type).entries()]
        .filter(([, o]) => !type.namespaced || namespace === undefined || o.metadata.namespace === namespace)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return items.map(([, o]) => o);
    },

    readOne(resource, name, namespace) {
      const type = requireType(resource);
      return bucket(type).get(keyOf(type, name, namespace));
    },

    create(resource, input) {
      const type = requireType(resource);
      const object = cloneJson(input);
      const metadata = (object.metadata ??= {} as KubeObject['metadata']);
      // generateName gets 5 characters, and a name taken answers 409 AlreadyExists at once: stricter than an apiserver
      // of 1.31 or later, which tries up to 7 names first (KEP-4420, RetryGenerateName: alpha 1.30, beta 1.31, GA 1.32,
      // https://www.kubernetes.dev/resources/keps/4420/), as strict as 1.30 and before. Pods of one ReplicaSet share a
      // prefix, so thousands of replacements meet a collision now and then; the simulated controllers record a
      // FailedCreate and take another name (controllers/create-named-pod.ts), and nothing the bot creates uses generateName.
      if (!metadata.name && typeof metadata.generateName === 'string') metadata.name = metadata.generateName + randomSuffix(random);
      if (!metadata.name) {
        throw new SimKubeError(422, 'Invalid', `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
      }
      if (type.namespaced) {
        metadata.namespace ||= 'default';
        if (resource !== 'namespaces') ensureNamespace(metadata.namespace);
      } else delete metadata.namespace;
      const key = keyOf(type, metadata.name, metadata.namespace);
      if (bucket(type).has(key)) {
        throw new SimKubeError(409, 'AlreadyExists', `${qualified(type)} "${metadata.name}" already exists`);
      }
      normalize(type, object);
      metadata.uid ||= randomUid(random);
      metadata.creationTimestamp ||= isoSeconds(clock.now());
      if (type.usesGeneration) metadata.generation = 1;
      applyDefaults(type.plural, object);
      revision++;
      metadata.resourceVersion = String(revision);
      const frozen = deepFreeze(object);
      bucket(type).set(key, frozen);
      emit('ADDED', type.plural, frozen);
      return cloneJson(frozen);
    },

    update(resource, input) {
      const type = requireType(resource);
      const name = input.metadata?.name;
      const key = keyOf(type, name, input.metadata?.namespace);
      const existing = bucket(type).get(key);
      if (!existing) throw new SimKubeError(404, 'NotFound', `${qualified(type)} "${name}" not found`);
      const object = cloneJson(input);
      normalize(type, object);
      const metadata = object.metadata;
      metadata.uid = existing.metadata.uid;
      metadata.creationTimestamp = existing.metadata.creationTimestamp;
      if (type.namespaced) metadata.namespace = existing.metadata.namespace;
      if (existing.metadata.deletionTimestamp) {
        metadata.deletionTimestamp = existing.metadata.deletionTimestamp;
        if (existing.metadata.deletionGracePeriodSeconds !== undefined) {
          metadata.deletionGracePeriodSeconds = existing.metadata.deletionGracePeriodSeconds;
        }
      }
      if (type.usesGeneration) {
        const previous = (existing.metadata.generation as number) ?? 1;
        metadata.generation = deepEqual(existing.spec, object.spec) ? previous : previous + 1;
      }
      metadata.resourceVersion = existing.metadata.resourceVersion;
      if (deepEqual(existing, object)) return cloneJson(existing);
      // An object being deleted goes once its last finalizer is removed.
      const hadFinalizers = Boolean((existing.metadata.finalizers as string[] | undefined)?.length);
      if (existing.metadata.deletionTimestamp && hadFinalizers && !((metadata.finalizers as string[] | undefined)?.length)) {
        return remove(type, key, existing);
      }
      revision++;
      metadata.resourceVersion = String(revision);
      const frozen = deepFreeze(object);
      bucket(type).set(key, frozen);
      emit('MODIFIED', type.plural, frozen, existing);
      return cloneJson(frozen);
    },

    mutate(resource, name, namespace, change) {
      const current = store.get(resource, name, namespace);
      if (!current) return undefined;
      change(current);
      return store.update(resource, current);
    },

    delete(resource, name, namespace) {
      const type = requireType(resource);
      const key = keyOf(type, name, namespace);
      const existing = bucket(type).get(key);
      if (!existing) return undefined;
      if ((existing.metadata.finalizers as string[] | undefined)?.length) {
        if (existing.metadata.deletionTimestamp) return cloneJson(existing);
        return store.mutate(resource, name, namespace, (o) => {
          o.metadata.deletionTimestamp = isoSeconds(clock.now());
          o.metadata.deletionGracePeriodSeconds = 0;
        });
      }
      if (type.plural === 'namespaces') {
        for (const other of RESOURCES) {
          if (!other.namespaced) continue;
          for (const [otherKey, o] of [...bucket(other)]) if (o.metadata.namespace === name) remove(other, otherKey, o);
        }
      }
      return remove(type, key, existing);
    },

    deleteGracefully(resource, name, namespace, gracePeriodSeconds) {
      return deleteGracefully(store, resource, name, namespace, gracePeriodSeconds);
    },

    evictStatus(namespace, name) {
      return evictPod(store, namespace, name);
    },

    evict(namespace, name): EvictionResult {
      const status = evictPod(store, namespace, name);
      const causes = (status.details?.causes as Array<{ reason?: string; message: string }> | undefined) ?? undefined;
      const budget = /^The disruption budget (\S+) /.exec(causes?.[0]?.message ?? '')?.[1];
      return {
        ok: status.code === 201,
        code: status.code,
        message: status.message ?? 'Success',
        ...(causes ? { causes: causes.map((c) => ({ reason: c.reason ?? '', message: c.message })) } : {}),
        ...(budget ? { disruptionBudget: `${namespace}/${budget}` } : {}),
      };
    },

    recordEvent(input) {
      recordEvent(store, input);
    },

    peek(resource) {
      return [...bucket(requireType(resource)).values()];
    },

    subscribe(listener) {
      return store.subscribeRecords((record) => listener({ type: record.type, resource: record.resource, object: cloneJson(record.object) }));
    },

    subscribeRecords(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    resourceVersion: () => String(revision),

    historySince(rv) {
      compactByAge();
      if (rv < compactedRv) return 'expired';
      const start = history.findIndex((r) => r.rv > rv);
      return start < 0 ? [] : history.slice(start);
    },

    compactHistory() {
      compactedRv = revision;
      history = [];
      recordedAt = [];
    },
  };

  for (const name of SYSTEM_NAMESPACES) {
    store.create('namespaces', { metadata: { name, creationTimestamp: isoSeconds(opts.createdAt ?? clock.now()) } });
  }
  return store;
}
