import type { KubeObject } from '../ports/kube-port.js';
import type { SubnetInfo } from '../ports/ec2-port.js';

/**
 * Everything the checks, the plan builder and the status card know about one cluster: plain data, read once by
 * src/status/collect-snapshot.ts and never re-read. Each area is read on its own and may fail on its own (no
 * permission for EC2, the Kubernetes API unreachable): a failed area carries its error instead of a value, so a
 * status card still shows what could be read and the checks that needed the missing area say they were skipped.
 * Times are epoch milliseconds.
 */
export type Read<T> = { ok: true; value: T } | { ok: false; error: string };

export const readOk = <T>(value: T): Read<T> => ({ ok: true, value });
export const readFailed = <T>(error: string): Read<T> => ({ ok: false, error });

/** The value of an area, or `fallback` when it could not be read. */
export function valueOr<T>(read: Read<T>, fallback: T): T {
  return read.ok ? read.value : fallback;
}

export interface HealthIssue {
  code: string;
  message: string;
  resourceIds: string[];
}

export interface ClusterInfo {
  name: string;
  version: string;
  platformVersion?: string;
  /** ACTIVE, UPDATING, CREATING, FAILED, … */
  status: string;
  subnetIds: string[];
  tags: Record<string, string>;
  healthIssues: HealthIssue[];
  /** upgradePolicy.supportType: what happens at the end of standard support. */
  supportType?: 'STANDARD' | 'EXTENDED';
}

export interface OfferedVersion {
  version: string;
  /** standard / extended support, or unsupported (no longer offered). */
  support: 'standard' | 'extended' | 'unsupported' | 'unknown';
  releaseDate?: number;
  endOfStandardSupport?: number;
  endOfExtendedSupport?: number;
  isDefault?: boolean;
}

export interface UpdateInfo {
  id: string;
  type: string;
  status: string;
  /** The Version param of a VersionUpdate. */
  version?: string;
}

export interface NodegroupInfo {
  name: string;
  status: string;
  version?: string;
  releaseVersion?: string;
  amiType?: string;
  capacityType?: string;
  instanceTypes: string[];
  scaling: { min: number; max: number; desired: number };
  maxUnavailable?: number;
  maxUnavailablePercentage?: number;
  subnets: string[];
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: string }>;
  launchTemplate?: { id?: string; name?: string; version?: string };
  healthIssues: HealthIssue[];
  tags: Record<string, string>;
}

/** The versions EKS offers for one add-on on one cluster minor (DescribeAddonVersions), newest first. */
export interface AddonVersionsForMinor {
  versions: string[];
  defaultVersion?: string;
}

export interface AddonInfo {
  name: string;
  version: string;
  status?: string;
  healthIssues: HealthIssue[];
  tags: Record<string, string>;
  /** cluster minor → compatible versions; a minor missing here was not looked up (or the lookup failed, see catalogErrors). */
  catalog: Record<string, AddonVersionsForMinor>;
  catalogErrors: string[];
}

export interface InsightDeprecation {
  usage: string;
  replacedWith?: string;
  stopServingVersion?: string;
  startServingReplacementVersion?: string;
  clients: Array<{ userAgent: string; requestsLast30Days: number }>;
}

export interface InsightInfo {
  id: string;
  name: string;
  category: string;
  kubernetesVersion?: string;
  status: 'PASSING' | 'WARNING' | 'ERROR' | 'UNKNOWN';
  reason?: string;
  recommendation?: string;
  resources: Array<{ uri?: string; arn?: string; status?: string; reason?: string }>;
  deprecations: InsightDeprecation[];
  /** Set when DescribeInsight failed: only the summary is known. */
  detailError?: string;
}

export interface FargateProfileInfo {
  name: string;
  status?: string;
  subnets: string[];
  selectors: Array<{ namespace: string; labels?: Record<string, string> }>;
}

export interface KarpenterObjects {
  nodePools: KubeObject[];
  nodeClaims: KubeObject[];
  nodeClasses: KubeObject[];
}

export interface KubeSnapshot {
  nodes: Read<KubeObject[]>;
  pods: Read<KubeObject[]>;
  deployments: Read<KubeObject[]>;
  statefulsets: Read<KubeObject[]>;
  pdbs: Read<KubeObject[]>;
  pvcs: Read<KubeObject[]>;
  hpas: Read<KubeObject[]>;
  /** undefined: Karpenter's CRDs are not installed (the apiserver answered 404), which is not an error. */
  karpenter: Read<KarpenterObjects | undefined>;
}

export type AmiFamily = 'AL2' | 'AL2023' | 'Bottlerocket';
export type AmiArch = 'x86_64' | 'arm64';
/** The EKS-optimized image flavours: plain, NVIDIA GPU drivers (AL2 "gpu"), AWS Neuron (Inferentia/Trainium). */
export type AmiVariant = 'standard' | 'nvidia' | 'neuron';

/** One SSM public-parameter lookup of an EKS-optimized AMI. imageId undefined + no error: AWS publishes none. */
export interface AmiLookup {
  minor: string;
  family: AmiFamily;
  arch: AmiArch;
  /** Absent: standard. */
  variant?: AmiVariant;
  parameter: string;
  imageId?: string;
  error?: string;
}

/** A self-managed node group's Auto Scaling group, as the preflight checks need it (issue 13). */
export interface AsgSnapshot {
  name: string;
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  instanceIds: string[];
  protectedInstances: string[];
  launchTemplate?: { id: string; name: string; groupVersion: string; defaultVersion?: number; latestVersion?: number; error?: string };
  /** The EKS-optimized AMI of the group's own family/arch/variant per target minor (no family: none to look up). */
  amis: Array<{ minor: string; parameter?: string; imageId?: string; error?: string; why?: string }>;
}

export interface ClusterSnapshot {
  name: string;
  region: string;
  readAt: number;
  cluster: Read<ClusterInfo>;
  versions: Read<OfferedVersion[]>;
  /** Updates in progress (read only when the cluster is not ACTIVE). */
  updates: Read<UpdateInfo[]>;
  nodegroups: Read<NodegroupInfo[]>;
  addons: Read<AddonInfo[]>;
  insights: Read<InsightInfo[]>;
  fargateProfiles: Read<FargateProfileInfo[]>;
  /** The cluster's, its node groups' and its Fargate profiles' subnets. */
  subnets: Read<SubnetInfo[]>;
  kube: KubeSnapshot;
  amis: AmiLookup[];
  /** Self-managed groups; absent when the snapshot was read without Auto Scaling (then their checks do not run). */
  autoScalingGroups?: Read<AsgSnapshot[]>;
}

/** Every area a snapshot reads, with its read result, for "could not read …" lines. */
export function snapshotAreas(snapshot: ClusterSnapshot): Array<[string, Read<unknown>]> {
  const k = snapshot.kube;
  return [
    ['cluster', snapshot.cluster],
    ['EKS versions', snapshot.versions],
    ['updates', snapshot.updates],
    ['node groups', snapshot.nodegroups],
    ['add-ons', snapshot.addons],
    ['insights', snapshot.insights],
    ['Fargate profiles', snapshot.fargateProfiles],
    ['subnets', snapshot.subnets],
    ['nodes', k.nodes],
    ['pods', k.pods],
    ['deployments', k.deployments],
    ['statefulsets', k.statefulsets],
    ['PodDisruptionBudgets', k.pdbs],
    ['PersistentVolumeClaims', k.pvcs],
    ['HorizontalPodAutoscalers', k.hpas],
    ['Karpenter', k.karpenter],
  ];
}

/** "nodes: …; pods: …" for every area that failed, de-duplicated (an unreachable API fails every kube area alike). */
export function unreadAreas(snapshot: ClusterSnapshot): Array<{ area: string; error: string }> {
  return snapshotAreas(snapshot)
    .filter(([, read]) => !read.ok)
    .map(([area, read]) => ({ area, error: (read as { error: string }).error }));
}
