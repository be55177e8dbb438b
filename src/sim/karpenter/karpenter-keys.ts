/**
 * Well-known keys Karpenter v1 writes on NodeClaims and Nodes (kubernetes-sigs/karpenter pkg/apis/v1 and
 * aws/karpenter-provider-aws pkg/apis/v1, v1.x). Kept in one place so the sim and its tests spell them alike.
 */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const NODECLASS_LABEL = 'karpenter.k8s.aws/ec2nodeclass';
export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const REGISTERED_LABEL = 'karpenter.sh/registered';
export const INITIALIZED_LABEL = 'karpenter.sh/initialized';
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const ARCH_LABEL = 'kubernetes.io/arch';
export const OS_LABEL = 'kubernetes.io/os';
export const EXCLUDE_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

export const NODEPOOL_HASH_ANNOTATION = 'karpenter.sh/nodepool-hash';
export const NODEPOOL_HASH_VERSION_ANNOTATION = 'karpenter.sh/nodepool-hash-version';
export const NODEPOOL_HASH_VERSION = 'v3';
export const NODECLASS_HASH_ANNOTATION = 'karpenter.k8s.aws/ec2nodeclass-hash';
export const NODECLASS_HASH_VERSION_ANNOTATION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';
export const NODECLASS_HASH_VERSION = 'v4';
export const DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';

export const TERMINATION_FINALIZER = 'karpenter.sh/termination';
export const DISRUPTED_TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const };
export const UNREGISTERED_TAINT = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' as const };
// Added by the node lifecycle controller until the kubelet reports Ready; keeps the scheduler off fresh nodes.
export const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' as const };

/** Karpenter events for nodes, nodeclaims and nodepools land in this namespace (karpenter.md, Events). */
export const EVENT_NAMESPACE = 'default';
export const EVENT_COMPONENT = 'karpenter';

export type DisruptionReason = 'Drifted' | 'Empty' | 'Underutilized';
