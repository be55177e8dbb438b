import type { ClusterConfig } from '../config/clusters-config.js';
import { evaluateGuard } from '../planning/guards/evaluate-guard.js';
import type { DoctorCheck } from '../ports/doctor-check.js';
import { passed } from '../ports/doctor-check.js';
import type { GuardReader } from '../ports/guards/guard-port.js';

/**
 * `doctor` and start-up read each guard once (issue 29): one that can be read passes with its state now; one that
 * cannot is a warning (ok: null), never a failure and never a reason not to start — the server may come back before
 * an upgrade runs, and while one runs the guard's onMissingData decides.
 */
export async function guardChecks(reader: GuardReader, clusters: ClusterConfig[], now: number): Promise<DoctorCheck[]> {
  const all = clusters.flatMap((cluster) => (cluster.guards ?? []).map((guard) => ({ cluster, guard })));
  return Promise.all(
    all.map(async ({ cluster, guard }): Promise<DoctorCheck> => {
      const id = `cluster.${cluster.name}.guard.${guard.name}`;
      const reading = await reader.read(guard, { region: cluster.region, ...(cluster.roleArn ? { roleArn: cluster.roleArn } : {}) });
      if (reading.kind === 'error') {
        return { id, area: 'cluster', ok: null, detail: reading.reason, fix: `make ${guard.source.kind === 'cloudwatch' ? 'CloudWatch' : 'the guard\'s url'} reachable from the bot before an upgrade runs, or set onMissingData: ignore` };
      }
      const track = evaluateGuard(guard, undefined, reading, now);
      const state = track.status === 'unknown' ? `unknown now (${track.reason})` : track.status;
      return passed('cluster', id, `guard ${guard.name} of ${cluster.name} can be read: ${state}`);
    }),
  );
}
