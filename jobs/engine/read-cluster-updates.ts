import type { Update } from '@aws-sdk/client-eks';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import { readUpdatesByTime } from '../../src/cluster-reader/read-updates-by-time.js';

/**
 * The cluster's latest updates by `createdAt`, oldest first. ListUpdates answers in no order and in pages, so every
 * id is read and described (readUpdatesByTime); an update still in progress is always among them, wherever
 * ListUpdates put it.
 */
export async function readRecentUpdates(
  eks: EksPort,
  cluster: string,
  options: { limit?: number; scope?: { nodegroupName?: string; addonName?: string } } = {},
): Promise<Update[]> {
  const updates = await readUpdatesByTime(eks, cluster, { scope: options.scope });
  return updates.slice(-(options.limit ?? 10));
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
