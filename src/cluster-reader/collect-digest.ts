/**
 * Reads the clusters of a fleet digest (docs/fleet.md): each cluster once (a snapshot), its status and
 * the plan of its next minor, at most `concurrency` at a time, each under a deadline. A cluster that cannot be read
 * is a row saying so, never a failed digest. Days left are counted on the bot's Clock (the simulator's in tests);
 * the read deadline is real time, as it guards the network.
 */

import { readAndPlan } from './read-and-plan.js';
import type { ClusterConfig } from '../config/clusters-config.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { systemClock } from '../ports/clock.js';
import type { WaiverStore } from '../waivers/model/waiver-store.js';
import { buildClusterStatus, type ActiveJobStatus } from '../report/cluster-status.js';
import { buildDigestRow, type DigestRow } from '../report/digest.js';
import { mapBounded, withDeadline } from './bounded.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { describeReadError } from './read-error.js';

export interface CollectDigestOptions {
  findActive?: (cluster: string) => Promise<ActiveJobStatus | undefined>;
  waivers?: WaiverStore;
  concurrency?: number;
  timeoutMs?: number;
}

export async function collectDigestRows(sources: SnapshotSources, clusters: ClusterConfig[], options: CollectDigestOptions = {}): Promise<DigestRow[]> {
  return mapBounded(clusters, options.concurrency ?? 8, async (cluster) => {
    const job = options.findActive ? options.findActive(cluster.name).catch(() => undefined) : Promise.resolve(undefined);
    try {
      // The read and plan `plan` makes (read-and-plan.ts), to the next minor.
      const reading = await readAndPlan(sources, { name: cluster.name, region: cluster.region, roleArn: cluster.roleArn, config: cluster, waivers: options.waivers, timeoutMs: options.timeoutMs ?? 20_000, deadlineClock: systemClock });
      const { snapshot } = reading;
      const status = buildClusterStatus(snapshot, await job);
      const plan: Parameters<typeof buildDigestRow>[2] = !snapshot.cluster.ok ? undefined : 'plan' in reading ? reading.plan : reading.to ? { error: reading.problem } : undefined;
      return buildDigestRow(snapshot, status, plan, sources.clock.now());
    } catch (error) {
      return { cluster: cluster.name, region: cluster.region, error: describeReadError(`Reading cluster ${cluster.name}`, error) };
    }
  });
}
