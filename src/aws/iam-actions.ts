/**
 * Every IAM action the product calls, with the statement of deploy/iam/permissions-policy.json that grants it and
 * the resource it is authorized on (Service Authorization Reference), so `doctor` can ask IAM about each one and name
 * the exact line to add. test/unit/iam-policy-matches-adapters.test.ts holds this list to the SDK commands the
 * adapters import and to the policy file. `optional`: the bot works without it (doctor then probes instead).
 */
export type ActionScope = 'account' | 'cluster' | 'nodegroup' | 'addon' | 'fargateprofile' | 'public-parameter' | 'launch-template' | 'node-role' | 'cluster-role' | 'bot-role';

export interface ProductAction {
  action: string;
  sid: string;
  scope: ActionScope;
  /** A read `doctor` may make to prove the permission when IAM simulation is not allowed. */
  read: boolean;
  optional?: boolean;
}

const of = (sid: string, scope: ActionScope, read: boolean, actions: string[]): ProductAction[] => actions.map((action) => ({ action, sid, scope, read }));

export const PRODUCT_ACTIONS: ProductAction[] = [
  ...of('EksReadAccount', 'account', true, ['eks:ListClusters', 'eks:DescribeClusterVersions', 'eks:DescribeAddonVersions']),
  ...of('EksClusters', 'cluster', true, ['eks:DescribeCluster', 'eks:ListUpdates', 'eks:DescribeUpdate', 'eks:ListNodegroups', 'eks:ListAddons', 'eks:ListInsights', 'eks:DescribeInsight', 'eks:ListFargateProfiles', 'eks:DescribeInsightsRefresh']),
  ...of('EksClusters', 'cluster', false, ['eks:UpdateClusterVersion', 'eks:CancelUpdate', 'eks:CreateNodegroup', 'eks:StartInsightsRefresh']),
  ...of('EksNodegroups', 'nodegroup', true, ['eks:DescribeNodegroup']),
  ...of('EksNodegroups', 'nodegroup', false, ['eks:UpdateNodegroupVersion', 'eks:DeleteNodegroup']),
  ...of('EksAddons', 'addon', true, ['eks:DescribeAddon']),
  ...of('EksAddons', 'addon', false, ['eks:UpdateAddon']),
  ...of('EksFargateProfiles', 'fargateprofile', true, ['eks:DescribeFargateProfile']),
  ...of('PassNodeRoleToEksForBlueGreen', 'node-role', false, ['iam:PassRole']),
  ...of('PublicAmiParameters', 'public-parameter', true, ['ssm:GetParameter']),
  ...of('Ec2Read', 'account', true, ['ec2:DescribeSubnets', 'ec2:DescribeLaunchTemplateVersions']),
  ...of('Ec2LaunchTemplates', 'launch-template', false, ['ec2:CreateLaunchTemplateVersion', 'ec2:ModifyLaunchTemplate']),
  ...of('SelfManagedAutoScaling', 'account', true, ['autoscaling:DescribeAutoScalingGroups', 'autoscaling:DescribeInstanceRefreshes']),
  ...of('SelfManagedAutoScaling', 'account', false, [
    'autoscaling:CancelInstanceRefresh', 'autoscaling:CompleteLifecycleAction', 'autoscaling:DeleteLifecycleHook', 'autoscaling:PutLifecycleHook',
    'autoscaling:StartInstanceRefresh', 'autoscaling:TerminateInstanceInAutoScalingGroup', 'autoscaling:UpdateAutoScalingGroup',
  ]),
  ...of('AssumePerClusterRoles', 'cluster-role', false, ['sts:AssumeRole']),
  { action: 'iam:SimulatePrincipalPolicy', sid: 'OptionalDoctorSimulatePolicy', scope: 'bot-role', read: true, optional: true },
  // CloudWatch guards (issue 29, docs/guards.md): only a cluster with a cloudwatch guard needs them.
  { action: 'cloudwatch:DescribeAlarms', sid: 'OptionalGuardsCloudWatch', scope: 'account', read: true, optional: true },
  { action: 'cloudwatch:GetMetricData', sid: 'OptionalGuardsCloudWatch', scope: 'account', read: true, optional: true },
];

/** Calls IAM never authorizes: STS answers GetCallerIdentity for any valid credentials. */
export const NEEDS_NO_PERMISSION = ['sts:GetCallerIdentity'];

export const PERMISSIONS_POLICY_FILE = 'deploy/iam/permissions-policy.json';

/** The resource ARN IAM checks the action on, for one cluster (region, account) of the bot. */
export function resourceFor(action: ProductAction, cluster: { name: string; region: string; roleArn?: string }, account: string): string {
  const eks = `arn:aws:eks:${cluster.region}:${account}`;
  switch (action.scope) {
    case 'account':
      return '*';
    case 'cluster':
      return `${eks}:cluster/${cluster.name}`;
    case 'nodegroup':
      return `${eks}:nodegroup/${cluster.name}/*/*`;
    case 'addon':
      return `${eks}:addon/${cluster.name}/*/*`;
    case 'fargateprofile':
      return `${eks}:fargateprofile/${cluster.name}/*/*`;
    case 'public-parameter':
      return `arn:aws:ssm:${cluster.region}::parameter/aws/service/eks/optimized-ami/*`;
    case 'launch-template':
      return `arn:aws:ec2:${cluster.region}:${account}:launch-template/*`;
    case 'node-role':
      return `arn:aws:iam::${account}:role/*`;
    case 'cluster-role':
      return cluster.roleArn ?? '*';
    case 'bot-role':
      return '*';
  }
}

/** What to add to the policy for a missing action, in the file's own terms. */
export function policyLineFor(action: string): string {
  const known = PRODUCT_ACTIONS.find((a) => a.action === action);
  return known ? `add "${action}" to the Action list of statement ${known.sid} in ${PERMISSIONS_POLICY_FILE}` : `add "${action}" to ${PERMISSIONS_POLICY_FILE}`;
}
