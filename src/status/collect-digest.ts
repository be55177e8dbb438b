/**
 * Reads the clusters of a fleet digest (docs/fleet.md): each cluster once (a snapshot), its status and
 * the plan of its next minor, at most `concurrency` at a time, each under a deadline. A cluster that cannot be read
 * is a row saying so, never a failed digest. Days left are counted on the bot's Clock (the simulator's in tests);
 * the read deadline is real time, as it guards the network.
 */

import type { ClusterConfig } from '../config/clusters-config.js';
import { buildPlan } from '../planning/build-plan.js';
import { policyFromConfig } from '../planning/plan-policy.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { systemClock } from '../ports/clock.js';
import type { WaiverStore } from '../ports/waiver-store.js';
import { buildClusterStatus, type ActiveJobStatus } from '../report/cluster-status.js';
import { buildDigestRow, type DigestRow } from '../report/digest.js';
import { readWaiversForPlan } from '../waivers/read-waivers.js';
import { mapBounded, withDeadline } from './bounded.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { offeredProblem } from './plan-request.js';
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
      const snapshot = await withDeadline(
        collectSnapshot(sources, { name: cluster.name, region: cluster.region, roleArn: cluster.roleArn }),
        options.timeoutMs ?? 20_000,
        `Cluster ${cluster.name}`,
        systemClock,
      );
      const status = buildClusterStatus(snapshot, await job);
      const next = status.version ? nextMinorOf(status.version) : undefined;
      let plan: Parameters<typeof buildDigestRow>[2];
      if (next && snapshot.cluster.ok) {
        const notOffered = offeredProblem(snapshot, next);
        if (notOffered) plan = { error: notOffered };
        else {
          try {
            const slack = await readWaiversForPlan(options.waivers, cluster.name);
            plan = buildPlan(snapshot, next, policyFromConfig(cluster, slack.waivers, slack.note));
          } catch (error) {
            plan = { error: (error as Error).message };
          }
        }
      }
      return buildDigestRow(snapshot, status, plan, sources.clock.now());
    } catch (error) {
      return { cluster: cluster.name, region: cluster.region, error: describeReadError(`Reading cluster ${cluster.name}`, error) };
    }
  });
}
