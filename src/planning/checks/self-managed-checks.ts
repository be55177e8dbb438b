import { configuredAmiSource } from '../deciders/configured-ami-source.js';
import { DEFAULT_SELF_MANAGED_POLICY } from '../../config/clusters-config.js';
import type { AsgSnapshot, ClusterSnapshot } from '../cluster-snapshot.js';
import { plural, type Finding } from '../../ports/finding.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { upgradePath } from '../upgrade-path.js';

/**
 * ASG0xx — self-managed node groups the job upgrades itself (issue 13): what would stop or slow that rollout. A
 * launch template with versions newer than the group's (someone's change that the bot's copy would skip), no AMI
 * for the next minor, a group at its max size (each replacement waits until the old instance is gone), and
 * instances protected from scale in (an instance refresh waits an hour for them, then fails).
 */
export function checkSelfManaged(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  const path = upgradePath(snapshot, target);
  const groups = snapshot.autoScalingGroups?.ok ? snapshot.autoScalingGroups.value : [];
  if (!path) return [];
  return groups.flatMap((group) => checkGroup(group, path.to, policy));
}

function checkGroup(group: AsgSnapshot, to: string, policy: PlanPolicy): Finding[] {
  const ref = `autoscalinggroup/${group.name}`;
  const rules = policy.selfManaged?.(group.name) ?? DEFAULT_SELF_MANAGED_POLICY;
  const findings: Finding[] = [];
  const lt = group.launchTemplate;
  const used = lt && /^\d+$/.test(lt.groupVersion) ? Number(lt.groupVersion) : lt?.groupVersion === '$Default' ? lt.defaultVersion : lt?.latestVersion;
  if (lt && used !== undefined && lt.latestVersion !== undefined && lt.latestVersion > used) {
    findings.push({
      code: 'ASG001',
      severity: 'warning',
      title: `Launch template ${lt.name || lt.id} of self-managed group ${group.name} has ${plural(lt.latestVersion - used, 'version')} newer than the ${used} the group uses (latest ${lt.latestVersion}): the bot's new version copies ${used}, so those changes would not roll out`,
      resources: [ref, `launchtemplate/${lt.id}`],
      remedy: `Point the group at the version you mean (aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${group.name} --launch-template LaunchTemplateId=${lt.id},Version=${lt.latestVersion}) or delete the pending versions before the upgrade.`,
    });
  }
  const configured = configuredAmiSource(rules, to);
  const ami = group.amis.find((a) => a.minor === to);
  if (!configured && ami && !ami.imageId && !ami.error) {
    findings.push({
      code: 'ASG002',
      severity: 'error',
      title: `No ${to} AMI for self-managed group ${group.name}: ${ami.parameter ? `SSM ${ami.parameter} does not exist` : ami.why ?? 'nothing to look up'}`,
      resources: [ref],
      remedy: `Give the group an AMI source in clusters.yaml (selfManaged.${group.name}.amiParameter: "/my/amis/{minor}/image_id" or ami: {"${to}": ami-…}), or move it to a family AWS publishes for ${to}; otherwise the job stops at this group.`,
    });
  }
  if (group.desiredCapacity > 0 && group.maxSize <= group.desiredCapacity) {
    findings.push({
      code: 'ASG003',
      severity: 'warning',
      title: `Self-managed group ${group.name} is at its max size (${group.desiredCapacity} of ${group.maxSize}): no room for a replacement while an old instance is still terminating, so each node's pods wait with one node less`,
      resources: [ref],
      remedy: `Raise the max size by one for the upgrade: aws autoscaling update-auto-scaling-group --auto-scaling-group-name ${group.name} --max-size ${group.desiredCapacity + 1}`,
    });
  }
  if (group.protectedInstances.length > 0) {
    const refresh = rules.strategy === 'instance-refresh';
    findings.push({
      code: 'ASG004',
      severity: refresh ? 'error' : 'warning',
      title: `${plural(group.protectedInstances.length, 'instance')} of self-managed group ${group.name} ${group.protectedInstances.length === 1 ? 'is' : 'are'} protected from scale in (${group.protectedInstances.join(', ')})${refresh ? ': its instance refresh would wait an hour for them, then fail' : ': the bot terminates them one by one anyway, against that protection'}`,
      resources: [ref, ...group.protectedInstances.map((id) => `instance/${id}`)],
      remedy: `Remove the protection for the upgrade if it is safe: aws autoscaling set-instance-protection --auto-scaling-group-name ${group.name} --no-protected-from-scale-in --instance-ids ${group.protectedInstances.join(' ')}`,
    });
  }
  return findings;
}
