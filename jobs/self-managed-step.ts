import { describeError } from '../src/upgrade/classify-error.js';
import { checkKubeletSkew, describeKubeletMinors, nodeVersionsOf } from '../src/upgrade/kubelet-skew.js';
import type { KubeObject } from '../src/ports/kube-port.js';
import type { Step } from '../src/upgrade/step-context.js';

/**
 * Self-managed node groups are not automated yet: the step finds their nodes (neither a managed node group's, nor
 * Fargate, nor Karpenter's) and posts the exact manual steps for the target, so the hop's record says what is left.
 */
export function isSelfManaged(node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  if (labels['node.kubernetes.io/lifecycle'] === 'self-managed') return true;
  return !labels['eks.amazonaws.com/nodegroup'] && labels['eks.amazonaws.com/compute-type'] !== 'fargate' && !labels['karpenter.sh/nodepool'];
}

function groupOf(node: KubeObject): string {
  const labels = node.metadata.labels ?? {};
  return labels['alpha.eksctl.io/nodegroup-name'] ?? labels['eks.amazonaws.com/nodegroup-name'] ?? 'self-managed';
}

export function manualSteps(to: string, groups: string[]): string[] {
  return [
    `Manual steps for ${groups.join(', ')} (self-managed nodes are not upgraded by this bot yet):`,
    `1. Find the ${to} EKS-optimized AMI: \`aws ssm get-parameter --name /aws/service/eks/optimized-ami/${to}/amazon-linux-2023/x86_64/standard/recommended/image_id\``,
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
  const groups = [...new Set(nodes.map(groupOf))].sort();
  const behind = nodeVersionsOf(nodes).filter((n) => !n.kubeletVersion.startsWith(`v${ctx.step.to}.`)).length;
  if (behind > 0) {
    await ctx.emit('manual-steps', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: manualSteps(ctx.step.to, groups).join('\n') });
  }
  const outcome = behind > 0 ? `${behind} below ${ctx.step.to}; manual steps posted` : `all at ${ctx.step.to}`;
  return { outcome: 'done', summary: `${nodes.length} self-managed node(s) in ${groups.join(', ')} (kubelets ${describeKubeletMinors(skew)}): ${outcome}` };
};
