/**
 * The `fleet` scenario: N clusters for `status --all`, digests, rollouts and scale tests, named by environment in
 * turn (dev-001, staging-002, prod-003, dev-004 …) so rollout waves like 'dev-*' 'staging-*' 'prod-*' each get a
 * third. On its calendar (2025-10-15) 1.29 and 1.30 are in extended support, 1.31's standard support ends in 42
 * days, 1.32 and 1.33 have months left; every 4th cluster at 1.31 or later has upgrade policy STANDARD (auto-upgraded, no
 * extended-support bill). Versions, regions and sizes
 * vary deterministically with the index, and a few clusters are broken on purpose so status code has to cope:
 * every 10th cluster's Kubernetes API is unreachable, every 13th is FAILED, every 7th still runs an AL2 node
 * group two minors behind its control plane.
 *
 * With `healthyAt` (`--fleet-version 1.32`, for rollouts of the whole fleet such as P8 in `npm run bench`) every
 * cluster is at that version, ACTIVE and reachable, its node group at the same version: nothing broken on purpose.
 */

import { defaultAddonVersion } from '../aws/eks/addon-catalog.js';

const VERSIONS = ['1.29', '1.30', '1.31', '1.32', '1.33'];
const REGIONS = ['us-west-2', 'us-east-1', 'eu-west-1'];
const ENVIRONMENTS = ['prod', 'dev', 'staging'];

/** The name of the fleet's index-th cluster (1-based): dev-001, staging-002, prod-003, dev-004 … */
export function fleetClusterName(index: number): string {
  return `${ENVIRONMENTS[index % 3]}-${String(index).padStart(3, '0')}`;
}

export function generateFleetScenario(count: number, opts: { healthyAt?: string } = {}): Record<string, unknown> {
  if (!Number.isInteger(count) || count < 1 || count > 2000) {
    throw new Error(`fleet scenario: --clusters must be an integer between 1 and 2000, got ${count}`);
  }
  if (opts.healthyAt !== undefined && !VERSIONS.includes(opts.healthyAt)) {
    throw new Error(`fleet scenario: --fleet-version must be one of ${VERSIONS.join(', ')} (a version with a newer one to upgrade to), got "${opts.healthyAt}"`);
  }
  const clusters = Array.from({ length: count }, (_, i) => fleetCluster(i + 1, opts.healthyAt));
  return {
    name: 'fleet',
    description: opts.healthyAt ? `${count} generated healthy clusters at ${opts.healthyAt}` : `${count} generated clusters at mixed versions; some unreachable or failed`,
    calendarAsOf: '2025-10-15',
    eks: { versions: ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34'], controlPlaneUpdateMinutes: 10 },
    clusters,
  };
}

function fleetCluster(index: number, healthyAt?: string): Record<string, unknown> {
  const name = fleetClusterName(index);
  const version = healthyAt ?? VERSIONS[index % VERSIONS.length];
  const region = REGIONS[index % REGIONS.length];
  const lagging = !healthyAt && index % 7 === 0 && Number(version.split('.')[1]) >= 31;
  const ngVersion = lagging ? `1.${Number(version.split('.')[1]) - 2}` : version;
  const second = (index % 250) + 1;
  return {
    name,
    region,
    version,
    status: !healthyAt && index % 13 === 0 ? 'FAILED' : 'ACTIVE',
    // Upgrade policy STANDARD only where it can hold: EKS auto-upgrades such a cluster when standard support ends.
    ...(index % 4 === 0 && Number(version.split('.')[1]) >= 31 ? { supportType: 'STANDARD' } : {}),
    unreachable: !healthyAt && index % 10 === 0,
    tags: { team: `team-${index % 5}`, env: ENVIRONMENTS[index % 3] },
    vpc: {
      cidr: `10.${second}.0.0/16`,
      subnets: ['a', 'b', 'c'].map((az, j) => ({ zone: `${region}${az}`, cidr: `10.${second}.${j * 64}.0/18`, availableIps: 4000 + j * 100 })),
    },
    nodegroups: [
      {
        name: `${name}-ng`,
        version: ngVersion,
        amiType: lagging ? 'AL2_x86_64' : 'AL2023_x86_64_STANDARD',
        instanceTypes: ['m5.large'],
        scaling: { min: 1, max: 4, desired: 1 + (index % 3) },
      },
    ],
    addons: ['vpc-cni', 'coredns', 'kube-proxy'].map((addon) => ({ name: addon, version: defaultAddonVersion(addon, version) })),
  };
}
