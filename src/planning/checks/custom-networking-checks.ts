import type { SubnetInfo } from '../../ports/aws/ec2-port.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { plural, type Finding } from '../../ports/finding.js';
import { NODE_SUBNET_ERROR_BELOW, NODE_SUBNET_WARNING_BELOW } from './subnet-checks.js';

/**
 * NET003 — VPC CNI custom networking: pods take their IPs from the subnet each ENIConfig names (one per AZ, matched
 * to nodes by zone label), not from the node's subnet, so NET002's node-subnet count says nothing about them. A
 * rollout surges replacement nodes, each of which attaches ENIs from those subnets (warm IPs included) before the
 * old nodes release theirs: the same thresholds as NET002 apply.
 */
export function checkCustomNetworking(snapshot: ClusterSnapshot): Finding[] {
  const eniConfigs = valueOr(snapshot.kube.eniConfigs ?? { ok: true, value: [] }, []);
  if (eniConfigs.length === 0 || !snapshot.subnets.ok) return [];
  const byId = new Map(snapshot.subnets.value.map((subnet) => [subnet.subnetId, subnet]));
  const findings: Finding[] = [];
  for (const eni of eniConfigs) {
    const subnetId = String(eni.spec?.subnet ?? '');
    const subnet: SubnetInfo | undefined = byId.get(subnetId);
    const ref = `eniconfig/${eni.metadata.name}`;
    if (!subnet) {
      findings.push({
        code: 'NET003',
        severity: 'warning',
        title: `ENIConfig ${eni.metadata.name} names pod subnet ${subnetId || '(none)'}, which EC2 did not return: its free IPs are unknown`,
        resources: [ref],
        remedy: `Check the ENIConfig (kubectl get eniconfig ${eni.metadata.name} -o yaml) and that the subnet exists in this account and region.`,
      });
      continue;
    }
    const free = subnet.availableIpAddressCount;
    if (free >= NODE_SUBNET_WARNING_BELOW) continue;
    const error = free < NODE_SUBNET_ERROR_BELOW;
    findings.push({
      code: 'NET003',
      severity: error ? 'error' : 'warning',
      title: `Pod subnet ${subnet.subnetId} (${subnet.availabilityZone}) of ENIConfig ${eni.metadata.name} has ${plural(free, 'free IP')} (${error ? `below ${NODE_SUBNET_ERROR_BELOW}` : `below ${NODE_SUBNET_WARNING_BELOW}`}): pods on the replacement nodes may not get addresses`,
      resources: [ref, `subnet/${subnet.subnetId} (${subnet.availabilityZone}, ${free} free)`],
      remedy: 'Free addresses in the pod subnet, or add a larger one (secondary CIDR) and point the ENIConfig at it, before the data-plane step; lower WARM_ENI_TARGET / set WARM_IP_TARGET to reserve fewer IPs per node.',
    });
  }
  return findings;
}
