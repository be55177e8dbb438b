/**
 * One cluster's status reads its updates twice over: the rollback line (collect-statuses.ts, every cluster) and, for a
 * cluster that is not ACTIVE, the card's latest updates (collect-snapshot.ts). Both are ListUpdates followed by
 * DescribeUpdate of every id, for the same cluster at the same moment; within one status read they share the calls
 * instead of making each twice. Nothing is kept past that read, and a node group's or add-on's updates (a scope)
 * are not shared.
 */

import type { EksPort } from '../ports/aws/eks-port.js';
import type { SnapshotSources } from './collect-snapshot.js';

export function shareClusterUpdates<S extends SnapshotSources>(sources: S, cluster: string): S {
  let ids: Promise<string[]> | undefined;
  const described = new Map<string, ReturnType<EksPort['describeUpdate']>>();
  const ports = new WeakMap<EksPort, EksPort>();
  const eks: SnapshotSources['eks'] = (target) => {
    const own = sources.eks(target);
    let port = ports.get(own);
    if (!port) {
      port = Object.assign(Object.create(own) as EksPort, {
        listUpdates: (name: string, filter?: Parameters<EksPort['listUpdates']>[1]) => {
          if (name !== cluster || filter) return own.listUpdates(name, filter);
          return (ids ??= own.listUpdates(name));
        },
        describeUpdate: (name: string, id: string, scope?: Parameters<EksPort['describeUpdate']>[2]) => {
          if (name !== cluster || scope) return own.describeUpdate(name, id, scope);
          let pending = described.get(id);
          if (!pending) described.set(id, (pending = own.describeUpdate(name, id)));
          return pending;
        },
      });
      ports.set(own, port);
    }
    return port;
  };
  return { ...sources, eks };
}
