import type { ClusterConfig, ConfigWaiver } from '../../config/clusters-config.js';
import type { Waiver } from '../model/waiver.js';

/** A date without a time ("2026-12-31") lasts to the end of that day, UTC. */
function configWaiverExpiry(expires: string): number {
  const at = Date.parse(expires);
  return /^\d{4}-\d{2}-\d{2}$/.test(expires) ? at + 24 * 3600_000 : at;
}

/** The waivers clusters.yaml grants a cluster: active from the start, approved by whoever merged them. */
export function configWaivers(cluster: ClusterConfig): Waiver[] {
  return (cluster.waivers ?? []).map((waiver: ConfigWaiver, index): Waiver => ({
    id: `clusters.yaml#${index + 1}`,
    cluster: cluster.name,
    code: waiver.code,
    resource: waiver.resource,
    reason: waiver.reason,
    expiresAt: configWaiverExpiry(waiver.expires),
    requestedBy: waiver.approvedBy,
    requestedAt: 0,
    state: 'active',
    approvedBy: waiver.approvedBy,
    source: 'clusters.yaml',
  }));
}
