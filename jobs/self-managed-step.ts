import { describeError } from './classify-error.js';
import { checkKubeletSkew, describeKubeletMinors, nodeVersionsOf } from '../src/planning/kubelet-skew.js';
import type { KubeObject } from '../src/ports/kube-port.js';
import { amiParameter, archOfNode, familyOfNode } from '../src/planning/ami-parameters.js';
import { computeOfNode } from '../src/planning/compute-groups.js';
import type { AmiArch, AmiFamily } from '../src/planning/cluster-snapshot.js';
import type { Step } from './step-context.js';

/**
 * Self-managed node groups are not automated yet: the step finds their nodes (neither a managed node group's, nor
 * Fargate, nor Karpenter's) and posts the exact manual steps for the target, so the hop's record says what is left.
 */
// The same classification the plan's NG004 and `status` use, so the job reports exactly the groups the plan named.
export function isSelfManaged(node: KubeObject): boolean {
  return computeOfNode(node).type === 'self-managed';
}

export interface SelfManagedGroup {
  name: string;
  family?: AmiFamily;
  arch: AmiArch;
  /** The target AMI id resolved from SSM, when the lookup answered. */
  amiId?: string;
}

/** Groups with the AMI family and architecture of their own nodes: an AL2 group must stay on AL2 user data. */
export function selfManagedGroups(nodes: KubeObject[]): SelfManagedGroup[] {
  const byName = new Map<string, SelfManagedGroup>();
  for (const node of nodes) {
    const name = computeOfNode(node).name;
    if (!byName.has(name)) byName.set(name, { name, family: familyOfNode(node), arch: archOfNode(node) });
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function manualSteps(to: string, groups: SelfManagedGroup[]): string[] {
  const amiLines = groups.map((group) => {
    if (!group.family) {
      return `   • ${group.name}: its OS image is not an EKS-optimized one; build or pick an AMI for ${to} yourself`;
    }
    const parameter = amiParameter(to, group.family, group.arch);
    const found = group.amiId ? `${group.amiId} (` : '';
    return `   • ${group.name} (${group.family} ${group.arch}): ${found}\`aws ssm get-parameter --name ${parameter} --query Parameter.Value\`${group.amiId ? ')' : ''}`;
  });
  return [
    `Manual steps for ${groups.map((g) => g.name).join(', ')} (self-managed nodes are not upgraded by this bot yet):`,
    `1. The ${to} EKS-optimized AMI of each group's own family:`,
    ...amiLines,
    `2. Add a launch template version with it: \`aws ec2 create-launch-template-version --launch-template-id <lt-id> --source-version <current> --launch-template-data '{"ImageId":"<ami-id>"}'\``,
    '3. Point the Auto Scaling group at that version and roll it: `aws autoscaling start-instance-refresh --auto-scaling-group-name <asg> --preferences \'{"MinHealthyPercentage":90}\'`',
    '4. Drain old nodes as they are replaced (`kubectl drain <node> --ignore-daemonsets --delete-emptydir-data`) and check `kubectl get nodes -L node.kubernetes.io/lifecycle`.',
  ];
}

export const selfManagedStep: Step = async (ctx) => {
  let nodes: KubeObject[];
  try {
    nodes = (await (await ctx.kube()).list('nodes')).items.filter(isSelfManaged);
  } catch (error) {
    return { outcome: 'skipped', summary: `could not read the nodes to find self-managed ones: ${describeError(error)}` };
  }
  if (nodes.length === 0) return { outcome: 'skipped', summary: 'no self-managed nodes' };
  const skew = checkKubeletSkew(nodeVersionsOf(nodes), ctx.step.to);
  const groups = selfManagedGroups(nodes);
  const behind = nodeVersionsOf(nodes).filter((n) => !n.kubeletVersion.startsWith(`v${ctx.step.to}.`)).length;
  if (behind > 0) {
    for (const group of groups) {
      if (!group.family) continue;
      // The exact AMI saves the operator a lookup; a failed lookup still leaves the command to run.
      group.amiId = await ctx.ssm.getParameter(amiParameter(ctx.step.to, group.family, group.arch)).catch(() => undefined);
    }
    await ctx.emit('manual-steps', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: manualSteps(ctx.step.to, groups).join('\n') });
  }
  const outcome = behind > 0 ? `${behind} below ${ctx.step.to}; manual steps posted` : `all at ${ctx.step.to}`;
  return { outcome: 'done', summary: `${nodes.length} self-managed node(s) in ${groups.map((g) => g.name).join(', ')} (kubelets ${describeKubeletMinors(skew)}): ${outcome}` };
};
