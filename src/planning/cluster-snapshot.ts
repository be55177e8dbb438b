import type { KubeObject } from '../ports/kube-port.js';
import type { LaunchTemplateLatest, SubnetInfo } from '../ports/aws/ec2-port.js';

/**
 * Everything the checks, the plan builder and the status card know about one cluster: plain data, read once by
 * src/cluster-reader/collect-snapshot.ts and never re-read. Each area is read on its own and may fail on its own (no
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
  /** When EKS last scanned for this insight (epoch ms). */
  lastRefreshTime?: number;
  /** Set when DescribeInsight failed: only the summary is known. */
  detailError?: string;
}

/** How fresh the insights are: the oldest scan time, and whether a refresh was asked for (and how it went). */
export interface InsightsRefreshInfo {
  asOf?: number;
  outcome: 'fresh' | 'refreshed' | 'timed-out' | 'failed';
  note?: string;
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

/** One Helm v3 release, decoded from its newest `sh.helm.release.v1.<name>.v<revision>` secret. */
export interface HelmRelease {
  name: string;
  namespace: string;
  revision: number;
  status: string;
  chart: { name: string; version: string; kubeVersion?: string; appVersion?: string };
  /** The rendered manifest Helm applied (YAML documents). */
  manifest: string;
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
  /** The preflight's workload areas (absent from snapshots made before they existed: their checks stay silent). */
  replicasets?: Read<KubeObject[]>;
  daemonsets?: Read<KubeObject[]>;
  services?: Read<KubeObject[]>;
  /** Validating and mutating webhook configurations together (kind tells them apart). */
  webhooks?: Read<KubeObject[]>;
  /** VPC CNI custom networking; [] when the CRD is not installed. */
  eniConfigs?: Read<KubeObject[]>;
  /** Only when `checks.helmReleases` is on (it needs `list` on Secrets). */
  helmReleases?: Read<HelmRelease[]>;
  /** The bot's own RBAC, asked per permission it needs (SelfSubjectAccessReview); unset when not asked. */
  access?: Read<Array<{ verb: string; resource: import('../ports/kube-port.js').KubeResource; subresource?: string; allowed: boolean }>>;
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
  /** Set when the insights were read: how old they are and whether they were refreshed first. */
  insightsRefresh?: InsightsRefreshInfo;
  fargateProfiles: Read<FargateProfileInfo[]>;
  /** The cluster's, its node groups', its Fargate profiles' and its ENIConfigs' (pod) subnets. */
  subnets: Read<SubnetInfo[]>;
  /** Newest versions of the launch templates managed node groups use (absent: not read). */
  launchTemplates?: Read<LaunchTemplateLatest[]>;
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
    ...optionalAreas(k),
  ];
}

function optionalAreas(k: KubeSnapshot): Array<[string, Read<unknown>]> {
  const areas: Array<[string, Read<unknown> | undefined]> = [
    ['ReplicaSets', k.replicasets],
    ['DaemonSets', k.daemonsets],
    ['Services', k.services],
    ['admission webhooks', k.webhooks],
    ['ENIConfigs', k.eniConfigs],
    ['Helm releases', k.helmReleases],
  ];
  return areas.filter((entry): entry is [string, Read<unknown>] => entry[1] !== undefined);
}

/** "nodes: …; pods: …" for every area that failed, de-duplicated (an unreachable API fails every kube area alike). */
export function unreadAreas(snapshot: ClusterSnapshot): Array<{ area: string; error: string }> {
  return snapshotAreas(snapshot)
    .filter(([, read]) => !read.ok)
    .map(([area, read]) => ({ area, error: (read as { error: string }).error }));
}
