import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import type { SimClock } from '../sim-clock.js';
import { EVENT_COMPONENT, EVENT_NAMESPACE } from './karpenter-keys.js';

/**
 * How the simulated Karpenter speaks: controller log lines in its zap JSON form (seed 000, karpenter.md "Log
 * lines") and Kubernetes Events through the store, deduplicated like Karpenter's recorder so a blocked node
 * produces one event per minute rather than one per 10-second pass.
 */
export type LogSink = (line: Record<string, unknown>) => void;

export interface KarpenterTelemetry {
  info(message: string, controller: string, fields?: Record<string, unknown>): void;
  error(message: string, controller: string, fields?: Record<string, unknown>): void;
  /**
   * Event on a cluster-scoped Karpenter object (Node, NodeClaim, NodePool) or a pod. With dedupeMs, returns when the
   * same event would next be published (so a caller that skips repeats knows when to look again).
   */
  event(object: KubeObject | { kind: string; name: string; namespace?: string; uid?: string }, reason: string, message: string,
    options?: { type?: 'Normal' | 'Warning'; dedupeMs?: number }): number | undefined;
  /** Fields naming a NodeClaim the way controller-runtime's logger does for the nodeclaim controllers. */
  claimFields(claimName: string): Record<string, unknown>;
}

// The commit of the Karpenter release the sim imitates (v1.x); shown in every real log line.
const COMMIT = '3b9c1f5';

export function createKarpenterTelemetry(opts: { store: SimKubeStore; clock: SimClock; random: () => number; log?: LogSink }): KarpenterTelemetry {
  const lastPublished = new Map<string, number>();
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(opts.random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  };
  const write = (level: string, message: string, controller: string, fields: Record<string, unknown> = {}) => {
    if (!opts.log) return;
    opts.log({
      level,
      time: new Date(opts.clock.now()).toISOString(),
      logger: 'controller',
      message,
      commit: COMMIT,
      controller,
      namespace: '',
      name: '',
      reconcileID: uuid(),
      ...fields,
    });
  };
  return {
    info: (message, controller, fields) => write('INFO', message, controller, fields),
    error: (message, controller, fields) => write('ERROR', message, controller, fields),
    claimFields: (claimName) => ({ controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: { name: claimName }, name: claimName }),
    event(object, reason, message, options = {}) {
      const involved = 'metadata' in object
        ? { kind: String(object.kind), name: object.metadata.name, namespace: object.metadata.namespace, uid: object.metadata.uid }
        : object;
      const key = `${involved.kind}/${involved.namespace ?? ''}/${involved.name}/${reason}/${message}`;
      const now = opts.clock.now();
      const dedupeMs = options.dedupeMs ?? 0;
      const last = lastPublished.get(key);
      if (dedupeMs > 0 && last !== undefined && now - last < dedupeMs) return last + dedupeMs;
      lastPublished.set(key, now);
      opts.store.recordEvent({
        namespace: involved.namespace ?? EVENT_NAMESPACE,
        involvedObject: { kind: involved.kind, name: involved.name, ...(involved.namespace ? { namespace: involved.namespace } : {}), ...(involved.uid ? { uid: involved.uid } : {}) },
        reason,
        message,
        type: options.type ?? 'Normal',
        component: EVENT_COMPONENT,
      });
      return dedupeMs > 0 ? now + dedupeMs : undefined;
    },
  };
}
