import type { ClusterConfig } from '../config/clusters-config.js';
import type { GuardEvaluationStore } from '../ports/guards/guard-evaluations.js';
import { guardStatusRows, type GuardStatus } from '../report/guard-status.js';

/**
 * What `status <cluster>` says of the cluster's guards (issue 29): the last evaluations the upgrade jobs and rollout
 * soaks recorded, never a read of the guards themselves. Undefined for a cluster without guards; a sentence in
 * `unread` when the record cannot be read (`unavailable` says why there is no store at all).
 */
export async function readGuardStatus(cluster: Pick<ClusterConfig, 'name' | 'guards'>, store: GuardEvaluationStore | undefined, unavailable: string): Promise<GuardStatus | undefined> {
  const guards = cluster.guards ?? [];
  if (guards.length === 0) return undefined;
  if (!store) return { rows: [], unread: unavailable };
  try {
    return { rows: guardStatusRows(guards, await store.last(cluster.name)) };
  } catch (error) {
    return { rows: [], unread: `The guards' last evaluations could not be read from Redis (${(error as Error).message.split('\n')[0]}); the upgrade job's thread shows them while it runs.` };
  }
}
