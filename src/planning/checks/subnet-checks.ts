import type { SubnetInfo } from '../../ports/aws/ec2-port.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { plural, type Finding } from '../../ports/finding.js';
import { remedyOf } from './finding-codes.js';

/**
 * NET0xx — free IP addresses. A control-plane update needs up to 5 free IPs in the cluster's subnets, in at least
 * two AZs (eksup EKS001); node-group rollouts surge new nodes before old ones go, and Fargate pods take one IP
 * each, so their subnets need headroom (eksup AWS001: below 30 blocks, below 100 is a warning).
 */
export const CONTROL_PLANE_MIN_FREE_IPS = 5;
export const CONTROL_PLANE_MIN_AZS = 2;
export const NODE_SUBNET_ERROR_BELOW = 30;
export const NODE_SUBNET_WARNING_BELOW = 100;

const describeSubnet = (subnet: SubnetInfo) => `subnet/${subnet.subnetId} (${subnet.availabilityZone}, ${subnet.availableIpAddressCount} free)`;

export function checkSubnets(snapshot: ClusterSnapshot): Finding[] {
  if (!snapshot.subnets.ok || !snapshot.cluster.ok) return [];
  const byId = new Map(snapshot.subnets.value.map((subnet) => [subnet.subnetId, subnet]));
  const findings: Finding[] = [];

  const clusterSubnets = snapshot.cluster.value.subnetIds.map((id) => byId.get(id)).filter((s): s is SubnetInfo => !!s);
  const zonesWithRoom = new Set(clusterSubnets.filter((s) => s.availableIpAddressCount >= CONTROL_PLANE_MIN_FREE_IPS).map((s) => s.availabilityZone));
  if (clusterSubnets.length > 0 && zonesWithRoom.size < CONTROL_PLANE_MIN_AZS) {
    findings.push({
      code: 'NET001',
      severity: 'error',
      title: `Only ${plural(zonesWithRoom.size, 'availability zone')} of the cluster's subnets ${zonesWithRoom.size === 1 ? 'has' : 'have'} ${CONTROL_PLANE_MIN_FREE_IPS}+ free IPs; the control-plane update needs ${CONTROL_PLANE_MIN_AZS}`,
      resources: clusterSubnets.map(describeSubnet),
      remedy: `Free IP addresses in those subnets (delete unused ENIs/load balancers) or add subnets with UpdateClusterConfig, until ${CONTROL_PLANE_MIN_AZS} AZs have at least ${CONTROL_PLANE_MIN_FREE_IPS} free IPs.`,
    });
  }

  const users: Array<{ ref: string; subnets: string[] }> = [
    ...(snapshot.nodegroups.ok ? snapshot.nodegroups.value.map((ng) => ({ ref: `nodegroup/${ng.name}`, subnets: ng.subnets })) : []),
    ...(snapshot.fargateProfiles.ok ? snapshot.fargateProfiles.value.map((p) => ({ ref: `fargateprofile/${p.name}`, subnets: p.subnets })) : []),
  ];
  for (const user of users) {
    const subnets = user.subnets.map((id) => byId.get(id)).filter((s): s is SubnetInfo => !!s);
    if (subnets.length === 0) continue;
    const free = subnets.reduce((sum, s) => sum + s.availableIpAddressCount, 0);
    if (free >= NODE_SUBNET_WARNING_BELOW) continue;
    const error = free < NODE_SUBNET_ERROR_BELOW;
    findings.push({
      code: 'NET002',
      severity: error ? 'error' : 'warning',
      title: `${user.ref} has ${free} free IPs left in its subnets (${error ? `below ${NODE_SUBNET_ERROR_BELOW}` : `below ${NODE_SUBNET_WARNING_BELOW}`}); new nodes or pods may not get addresses during the rollout`,
      resources: [user.ref, ...subnets.map(describeSubnet)],
      remedy: remedyOf('NET002'),
    });
  }
  return findings;
}
