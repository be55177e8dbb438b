import type { Update } from '@aws-sdk/client-eks';

/**
 * What to do about a failed EKS update, per AWS error code (the codes DescribeUpdate returns in `errors[]`, from
 * the EKS API reference). Used to finish the step-failed sentence: operation, cause, remedy.
 */
const REMEDIES: Record<string, string> = {
  SubnetNotFound: "a subnet of the cluster's VPC configuration no longer exists; restore it or update the cluster's subnets, then start the upgrade again",
  SecurityGroupNotFound: "a security group of the cluster's VPC configuration no longer exists; restore it or update the cluster's security groups, then start again",
  EniLimitReached: 'the account hit its network interface limit; free ENIs or raise the quota, then start again',
  IpNotAvailable: "the cluster's subnets lack free IP addresses (EKS needs up to 5 per subnet in at least two AZs); free addresses or add subnets, then start again",
  InsufficientFreeAddresses: "the subnets lack free IP addresses; free addresses or add subnets, then start again",
  AccessDenied: 'the cluster IAM role or the caller lacks a permission the update needs; fix the IAM policy, then start again',
  OperationNotPermitted: 'the service-linked role or an SCP forbids the operation; check the account policies, then start again',
  VpcIdNotFound: "the cluster's VPC cannot be found; check the cluster's VPC configuration",
  PodEvictionFailure: 'pods protected by PodDisruptionBudgets could not be evicted; relax the PDBs (e.g. scale the deployment up) or Force',
  NodeCreationFailure: 'new nodes failed to join the cluster; check the launch template, AMI, IAM role and subnets of the node group',
  ClusterUnreachable: 'EKS could not reach the Kubernetes API of the cluster; check the endpoint access settings and the cluster health',
  InsufficientNumberOfReplicas: 'too few replicas are ready for the update to proceed; check the workload, then retry',
  ConfigurationConflict: 'the add-on configuration conflicts with changes made in the cluster; retry with resolveConflicts PRESERVE or OVERWRITE',
  AdmissionRequestDenied: 'an admission webhook denied a change the update makes; check the webhooks, then retry',
  UnsupportedAddonModification: 'the add-on was modified in a way EKS cannot update; restore its defaults or update it by hand',
  K8sResourceNotFound: 'a Kubernetes resource the update needs is missing; check the add-on resources, then retry',
  Unknown: 'AWS gave no reason; look at the update with `aws eks describe-update` and contact AWS Support if it fails again',
};

export function remedyForUpdate(update: Update): string {
  const codes = (update.errors ?? []).map((error) => error.errorCode ?? 'Unknown');
  const remedies = [...new Set(codes)].map((code) => REMEDIES[code]).filter(Boolean);
  if (remedies.length > 0) return remedies.join('; ');
  return REMEDIES.Unknown;
}
