import { amiParameter, archOfAmiType, archOfNode, describeTargetAmi, familyOfNode, findAmi, isCustomAmiNodegroup, variantOfNode } from '../deciders/ami-parameters.js';
import type { AmiFamily, ClusterSnapshot, NodegroupInfo } from '../cluster-snapshot.js';
import { computeGroups, instanceIdOfNode, kubeletOf } from '../compute-groups.js';
import { plural, type Finding } from '../../ports/finding.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../plan-policy.js';
import { kubeletMinor, minorAtLeast, upgradePath } from '../upgrade-path.js';

/**
 * NG0xx — node groups: managed ones on a custom AMI (a version bump leaves them where they are), unhealthy ones,
 * AL2 AMIs (EKS publishes none after 1.32), and self-managed groups (the bot reports them; people roll them).
 */
export const AL2_LAST_MINOR = '1.32';
export const AL2_GONE_MINOR = '1.33';

/** Which EKS-optimized family a custom AMI is, when it is one of the AMIs SSM lists (the workshop's custom group is). */
function familyOfCustomAmi(snapshot: ClusterSnapshot, ng: NodegroupInfo): AmiFamily | undefined {
  const image = ng.releaseVersion && /^ami-/.test(ng.releaseVersion) ? ng.releaseVersion : undefined;
  return image ? snapshot.amis.find((ami) => ami.imageId === image)?.family : undefined;
}

export function checkNodegroups(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy = DEFAULT_POLICY): Finding[] {
  const path = upgradePath(snapshot, target);
  const findings: Finding[] = [];
  for (const ng of snapshot.nodegroups.ok ? snapshot.nodegroups.value : []) {
    const ref = `nodegroup/${ng.name}`;
    if (ng.status !== 'ACTIVE' || ng.healthIssues.length > 0) {
      findings.push({
        code: 'NG002',
        severity: 'error',
        title: `Managed node group ${ng.name} is ${ng.status}${ng.healthIssues.length ? `: ${ng.healthIssues.map((i) => `${i.code} ${i.message}`).join('; ')}` : ''}`,
        resources: [ref],
        remedy: `EKS cannot update a node group that is not ACTIVE and healthy: fix it first (aws eks describe-nodegroup --cluster-name ${snapshot.name} --nodegroup-name ${ng.name}).`,
      });
    }
    if (isCustomAmiNodegroup(ng) && path) {
      const chosen = policy.nodegroup(ng.name).launchTemplateVersion;
      const family = familyOfCustomAmi(snapshot, ng);
      const arch = archOfAmiType(ng.amiType);
      const hint = family
        ? `; its AMI is the EKS-optimized ${family} one, so ${describeTargetAmi(findAmi(snapshot, path.to, family, arch), path.to, family, arch)} fits`
        : '';
      const template = ng.launchTemplate ? `launch template ${ng.launchTemplate.name ?? ng.launchTemplate.id} v${ng.launchTemplate.version ?? '?'}` : 'its launch template';
      findings.push({
        code: 'NG001',
        severity: chosen ? 'info' : 'warning',
        title: `Managed node group ${ng.name} runs a custom AMI (${ng.releaseVersion ?? 'unknown image'} via ${template}): a version bump will not move it to ${path.to}`,
        resources: [ref],
        remedy: chosen
          ? `clusters.yaml rolls it to launch template version ${chosen}; make sure that version carries an AMI built for ${path.to}${hint}.`
          : `Create a new version of ${template} with an AMI built for ${path.to}${hint}, then set nodegroups.${ng.name}.launchTemplateVersion in clusters.yaml (the job rolls it with UpdateNodegroupVersion --launch-template); until then the job reports it and leaves it.`,
      });
    }
    if (path && ng.amiType?.startsWith('AL2_')) findings.push(...al2Finding(ref, `Managed node group ${ng.name} uses ${ng.amiType}`, path.to));
  }

  for (const group of computeGroups(snapshot).filter((g) => g.type === 'self-managed')) {
    if (!path || group.nodes.length === 0) continue;
    const ref = `selfmanaged/${group.name}`;
    const minors = [...new Set(group.nodes.map((node) => kubeletMinor(kubeletOf(node)) ?? 'unknown'))].sort();
    const family = familyOfNode(group.nodes[0]);
    const arch = archOfNode(group.nodes[0]);
    const ami = family ? describeTargetAmi(findAmi(snapshot, path.to, family, arch, variantOfNode(group.nodes[0])), path.to, family, arch) : `an AMI built for ${path.to}`;
    // Issue 13: the job rolls self-managed groups itself once it sees their Auto Scaling group.
    const ids = new Set(group.nodes.map(instanceIdOfNode));
    const asg = (snapshot.autoScalingGroups?.ok ? snapshot.autoScalingGroups.value : []).find((g) => g.instanceIds.some((id) => ids.has(id)));
    // Auto Scaling not read (a plan without it): the job still looks the group up when it runs.
    const unread = !snapshot.autoScalingGroups?.ok;
    findings.push({
      code: 'NG004',
      severity: asg || unread ? 'info' : 'warning',
      title: asg || unread
        ? `Self-managed node group ${group.name} (${plural(group.nodes.length, 'node')}, kubelet ${minors.join(', ')}) is rolled by the job through its Auto Scaling group${asg ? ` ${asg.name}` : ''}`
        : `Self-managed node group ${group.name} (${plural(group.nodes.length, 'node')}, kubelet ${minors.join(', ')}) has no Auto Scaling group the bot can see, so nothing upgrades it`,
      resources: [ref, ...group.nodes.map((node) => `node/${node.metadata.name}`)],
      remedy: asg || unread
        ? `Nothing by hand: the job adds a launch template version with ${ami} and replaces the nodes (selfManaged.${asg?.name ?? '<asg>'}.strategy in clusters.yaml: rolling, or instance-refresh).`
        : `Tag its Auto Scaling group kubernetes.io/cluster/${snapshot.name}=owned (and grant the bot autoscaling:Describe*), or point its launch template at ${ami} and roll the nodes by hand.`,
    });
    if (family === 'AL2') findings.push(...al2Finding(ref, `Self-managed node group ${group.name} runs Amazon Linux 2`, path.to));
  }
  return findings;
}

/** NG003: AL2 AMIs stop at 1.32 (eksup EKS008: a warning when the target is 1.32, an error from 1.33). */
export function al2Finding(ref: string, subject: string, target: string, code = 'NG003'): Finding[] {
  if (minorAtLeast(target, AL2_GONE_MINOR)) {
    return [
      {
        code,
        severity: 'error',
        title: `${subject}: EKS publishes no Amazon Linux 2 AMI for ${target} (AL2 ends at ${AL2_LAST_MINOR})`,
        resources: [ref],
        remedy: `Move it to AL2023 or Bottlerocket (e.g. ${amiParameter(AL2_LAST_MINOR, 'AL2023', 'x86_64').replace(AL2_LAST_MINOR, target)}) before the data plane goes past ${AL2_LAST_MINOR}.`,
      },
    ];
  }
  if (target === AL2_LAST_MINOR) {
    return [
      {
        code,
        severity: 'warning',
        title: `${subject}: ${AL2_LAST_MINOR} is the last minor with Amazon Linux 2 AMIs`,
        resources: [ref],
        remedy: 'Plan the move to AL2023 or Bottlerocket now; the next upgrade after this one needs it.',
      },
    ];
  }
  return [];
}
