/**
 * Reads that answer the same for every cluster of a region — the versions EKS offers (DescribeClusterVersions)
 * and the add-on catalogue (DescribeAddonVersions per add-on and minor) — made once per region for a whole
 * `status --all` instead of once per cluster. Shared for one fleet read only (a new status reads afresh). A
 * shared read that fails is not shared: each cluster then asks with its own credentials, so one account without
 * the permission does not sink the others' answer.
 */

import type { EksPort, EksPortFactory } from '../ports/aws/eks-port.js';
import type { SnapshotSources } from './collect-snapshot.js';

export function shareRegionReads<S extends SnapshotSources>(sources: S): S {
  const shared = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, own: () => Promise<T>): Promise<T> => {
    let read = shared.get(key) as Promise<T> | undefined;
    if (!read) {
      read = own();
      shared.set(key, read);
      read.catch(() => shared.delete(key));
      return read;
    }
    return read.catch(() => own());
  };
  const ports = new Map<string, EksPort>();
  const eks: EksPortFactory = (target) => {
    const key = `${target.region}|${target.roleArn ?? ''}`;
    let port = ports.get(key);
    if (!port) {
      const own = sources.eks(target);
      // Inherit every other call from the cluster's own port (whatever its shape), override the two regional reads.
      port = Object.assign(Object.create(own) as EksPort, {
        describeClusterVersions: () => once(`${target.region}|versions`, () => own.describeClusterVersions()),
        describeAddonVersions: (addon: string, minor: string) => once(`${target.region}|addon|${addon}|${minor}`, () => own.describeAddonVersions(addon, minor)),
      });
      ports.set(key, port);
    }
    return port;
  };
  return { ...sources, eks };
}
