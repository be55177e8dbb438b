import type { Update } from '@aws-sdk/client-eks';
import type { EksPort } from '../src/ports/eks-port.js';

/**
 * The cluster's recent updates, described. ListUpdates returns ids only, oldest first in practice, and a cluster
 * that has lived for years has many; an update still in progress is always among the latest few, so describing
 * the last `limit` is enough to find one to adopt.
 */
export async function readRecentUpdates(
  eks: EksPort,
  cluster: string,
  options: { limit?: number; scope?: { nodegroupName?: string; addonName?: string } } = {},
): Promise<Update[]> {
  const ids = await eks.listUpdates(cluster, options.scope);
  const recent = ids.slice(-(options.limit ?? 10));
  return Promise.all(recent.map((id) => eks.describeUpdate(cluster, id, options.scope)));
}

/** The update still running among `updates`, if any. */
export function inProgressUpdate(updates: Update[], types?: string[]): Update | undefined {
  return updates.find((update) => update.status === 'InProgress' && (!types || types.includes(update.type ?? '')));
}

/** "IpNotAvailable: Subnet subnet-1 has insufficient IPs (subnet-1)" — every error of a failed update, joined. */
export function describeUpdateErrors(update: Update): string {
  const errors = update.errors ?? [];
  if (errors.length === 0) return `the update ended ${update.status} without an error code`;
  return errors
    .map((error) => {
      const resources = error.resourceIds?.length ? ` (${error.resourceIds.join(', ')})` : '';
      return `${error.errorCode ?? 'Unknown'}: ${error.errorMessage ?? 'no message'}${resources}`;
    })
    .join('; ');
}
