import type { AlarmStore } from './cloudwatch-alarms.js';
import type { SimStrictness } from '../strictness.js';
import type { SimKubeStore } from '../kube/kube-store.js';
import type { SimClock } from '../sim-clock.js';
import type { Scenario, ScenarioDeprecatedApi } from '../scenario/scenario-schema.js';
import type { FaultState } from './faults.js';
import type { WallEvent } from './wall-timeline.js';

/**
 * The simulated AWS account: what EKS, EC2 and SSM know, plus one Kubernetes store per cluster. Controllers
 * (cluster updates, node group updates, add-on updates, Fargate) mutate it on the simulator clock; the HTTP
 * handlers read it and serialize AWS's wire shapes. Times are epoch milliseconds here; the wire turns them into
 * epoch seconds.
 */

export type UpdateStatus = 'InProgress' | 'Failed' | 'Cancelled' | 'Successful';

export interface UpdateError {
  errorCode: string;
  errorMessage: string;
  resourceIds?: string[];
}
export interface SimUpdate {
  id: string;
  type: string; // VersionUpdate, VersionRollback, ConfigUpdate, AddonUpdate
  status: UpdateStatus;
  params: Array<{ type: string; value: string }>;
  createdAt: number;
  /** When it stopped being InProgress (simulated ms): how long AWS took, for the overhead benchmark (P6). */
  endedAt?: number;
  errors: UpdateError[];
  /** Updates of a node group or add-on are listed under it (ListUpdates ?nodegroupName= / ?addonName=). */
  scope: { nodegroupName?: string; addonName?: string };
  /** The latest CancelUpdate of it (only VersionRollback on Auto Mode clusters while nodes roll back can be cancelled). */
  cancellation?: { status: 'InProgress' | 'Failed' | 'Successful'; reason: string };
}

export interface SimIssue {
  code: string;
  message: string;
  resourceIds?: string[];
}

export type EksTaintEffect = 'NO_SCHEDULE' | 'NO_EXECUTE' | 'PREFER_NO_SCHEDULE';

export interface SimNodegroup {
  name: string;
  arn: string;
  clusterName: string;
  version: string;
  releaseVersion: string;
  amiType: string;
  capacityType: 'ON_DEMAND' | 'SPOT';
  instanceTypes: string[];
  scaling: { minSize: number; maxSize: number; desiredSize: number };
  updateConfig: { maxUnavailable?: number; maxUnavailablePercentage?: number };
  labels: Record<string, string>;
  taints: Array<{ key: string; value?: string; effect: EksTaintEffect }>;
  subnets: string[];
  /** Custom launch template (amiType CUSTOM carries its own AMI). */
  launchTemplate?: { id: string; name: string; version: string };
  status: 'CREATING' | 'ACTIVE' | 'UPDATING' | 'DELETING' | 'CREATE_FAILED' | 'DELETE_FAILED' | 'DEGRADED';
  healthIssues: SimIssue[];
  createdAt: number;
  modifiedAt: number;
  nodeRole: string;
  diskSize: number;
  asgName: string;
  tags: Record<string, string>;
}

export interface SimLaunchTemplate {
  id: string;
  name: string;
  /** version number → AMI id (and instance type, for self-managed groups) of that version. */
  versions: Map<number, { imageId: string; createdAt: number; instanceType?: string; description?: string }>;
  defaultVersion: number;
}

/** An AMI the account can boot that is not an EKS-optimized one of the catalog (a team's own build). */
export interface SimImage {
  id: string;
  name: string;
  minor: string;
  family: 'AL2' | 'AL2023' | 'Bottlerocket';
  arch: 'x86_64' | 'arm64';
}

export type AsgLifecycleState = 'Pending' | 'InService' | 'Terminating' | 'Terminating:Wait' | 'Terminating:Proceed' | 'Terminated';

export interface SimLifecycleHook {
  name: string;
  transition: 'autoscaling:EC2_INSTANCE_TERMINATING' | 'autoscaling:EC2_INSTANCE_LAUNCHING';
  heartbeatTimeout: number;
  defaultResult: 'CONTINUE' | 'ABANDON';
}

export interface SimAsgInstance {
  instanceId: string;
  nodeName: string;
  zone: string;
  subnetId: string;
  instanceType: string;
  imageId: string;
  /** The launch template version it was launched from (a number, as DescribeAutoScalingGroups shows it). */
  launchTemplateVersion: string;
  lifecycleState: AsgLifecycleState;
  protectedFromScaleIn: boolean;
  launchedAt: number;
}

export type InstanceRefreshStatus = 'Pending' | 'InProgress' | 'Successful' | 'Failed' | 'Cancelling' | 'Cancelled';

export interface SimInstanceRefresh {
  id: string;
  status: InstanceRefreshStatus;
  statusReason?: string;
  startedAt: number;
  endedAt?: number;
  minHealthyPercentage: number;
  instanceWarmup: number;
  /** Instances to replace when it started; percentage = replaced / total. */
  total: number;
  replaced: number;
}

/** A self-managed node group: an Auto Scaling group whose instances join a cluster as nodes. */
export interface SimAutoScalingGroup {
  name: string;
  arn: string;
  clusterName: string;
  launchTemplate: { id: string; name: string; version: string };
  minSize: number;
  maxSize: number;
  desiredCapacity: number;
  subnets: string[];
  instances: Map<string, SimAsgInstance>;
  newInstancesProtectedFromScaleIn: boolean;
  /** Node labels and taints its user data gives the kubelet. */
  nodeLabels: Record<string, string>;
  nodeTaints: Array<{ key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }>;
  tags: Record<string, string>;
  refreshes: SimInstanceRefresh[];
  lifecycleHooks: SimLifecycleHook[];
  /** TerminateInstanceInAutoScalingGroup / refresh terminations, newest last (DescribeScalingActivities). */
  activities: Array<{ id: string; description: string; cause: string; startedAt: number; endedAt?: number; status: 'InProgress' | 'Successful' }>;
  createdAt: number;
}

export interface SimAddon {
  name: string;
  version: string;
  status: 'CREATING' | 'ACTIVE' | 'UPDATING' | 'DEGRADED' | 'UPDATE_FAILED' | 'DELETING' | 'CREATE_FAILED';
  createdAt: number;
  modifiedAt: number;
  healthIssues: SimIssue[];
  serviceAccountRoleArn?: string;
  configurationValues?: string;
}

export interface SimFargateProfile {
  name: string;
  arn: string;
  selectors: Array<{ namespace: string; labels?: Record<string, string> }>;
  subnets: string[];
  podExecutionRoleArn: string;
  createdAt: number;
  status: 'ACTIVE';
}

export interface SimCluster {
  name: string;
  region: string;
  arn: string;
  version: string;
  platformVersion: string;
  status: 'CREATING' | 'ACTIVE' | 'DELETING' | 'FAILED' | 'UPDATING' | 'PENDING';
  createdAt: number;
  roleArn: string;
  vpcId: string;
  subnetIds: string[];
  securityGroupIds: string[];
  clusterSecurityGroupId: string;
  serviceIpv4Cidr: string;
  tags: Record<string, string>;
  supportType: 'STANDARD' | 'EXTENDED';
  healthIssues: SimIssue[];
  oidcId: string;
  certificateData: string;
  /** Its Kubernetes API refuses connections. */
  unreachable: boolean;
  updates: SimUpdate[];
  nodegroups: Map<string, SimNodegroup>;
  addons: Map<string, SimAddon>;
  fargateProfiles: Map<string, SimFargateProfile>;
  deprecatedApis: ScenarioDeprecatedApi[];
  store: SimKubeStore;
  /** Last seen status per insight id, to report lastTransitionTime. */
  insightTransitions: Map<string, { status: string; at: number }>;
  /** When EKS last scanned for insights (lastRefreshTime), and an on-demand refresh (StartInsightsRefresh). */
  insightsRefreshedAt: number;
  insightsRefresh?: { startedAt: number; endsAt: number };
  /** The verdicts of the last insights scan, and its time (insights.ts scannedInsights). */
  insightsScan?: { at: number; insights: import('./eks/insights.js').SimInsight[] };
  /**
   * The version before the last successful in-place control-plane upgrade to the current version, and when that
   * upgrade ended: what a version rollback may return to within 7 days. Unset for a cluster created at its version,
   * and cleared by a rollback (a cluster rolls back one minor, once).
   */
  previousVersion?: { version: string; upgradedAt: number };
  /** The last completed version rollback (from → to, when it ended). */
  lastRollback?: { from: string; to: string; at: number };
  /** EKS Auto Mode (computeConfig): its nodes are EKS's to move to the control plane's version. */
  computeConfig?: { enabled: boolean; nodePools: string[]; nodeRoleArn?: string };
  /**
   * The Kubernetes minor Auto Mode nodes should run (the control plane's, or N-1 while a rollback moves the nodes
   * first); the Auto Mode controller replaces nodes until they match.
   */
  autoModeTarget?: string;
  /** Insight states forced by a test (POST /_sim/clusters/<name>/insights), by category + name. */
  insightOverrides: Map<string, InsightOverride>;
}

export interface InsightOverride {
  category: 'UPGRADE_READINESS' | 'ROLLBACK_READINESS';
  name: string;
  status: 'PASSING' | 'WARNING' | 'ERROR' | 'UNKNOWN';
  reason?: string;
  resources: Array<{ kubernetesResourceUri?: string; arn?: string; reason?: string }>;
}

export interface SimSubnet {
  id: string;
  vpcId: string;
  zone: string;
  cidr: string;
  region: string;
  /** Free IPs before simulated nodes took any. */
  baseAvailable: number;
  used: Set<string>;
}

export interface SimCall {
  service: 'eks' | 'ssm' | 'ec2' | 'sts' | 'autoscaling' | 'iam' | 'monitoring' | 'kubernetes';
  operation: string;
  cluster?: string;
  target?: string;
  at: number;
  /** Set when AWS refused the call (the error type, e.g. ResourceInUseException); the world did not change. */
  error?: string;
  /** The access-denied message, when the simulator's IAM policy refused the call. */
  denied?: string;
}

export interface EksSettings {
  controlPlaneUpdateMs: number;
  addonUpdateMs: number;
  nodeReadyMs: number;
  nodegroupCreateMs: number;
  insightsBlockUpgrades: boolean;
}

export interface SimWorld {
  readonly clock: SimClock;
  /** Which of the real services' rules the simulator enforces (all, unless relaxed by name). */
  readonly strictness: SimStrictness;
  readonly scenario: Scenario;
  readonly accountId: string;
  readonly settings: EksSettings;
  readonly clusters: Map<string, SimCluster>;
  readonly subnets: Map<string, SimSubnet>;
  readonly launchTemplates: Map<string, SimLaunchTemplate>;
  /** Self-managed node groups, by Auto Scaling group name. */
  readonly autoScalingGroups: Map<string, SimAutoScalingGroup>;
  /** AMIs of the account beyond the EKS-optimized catalog (scenario `images`). */
  readonly images: Map<string, SimImage>;
  /** The scenario's own SSM parameters (custom AMI ids), served beside the public ones. */
  readonly ssmParameters: Map<string, string>;
  /** CloudWatch metric alarms, by region and name (PutMetricAlarm, SetAlarmState; cloudwatch-alarms.ts). */
  readonly cloudWatchAlarms: AlarmStore;
  /**
   * Per PodDisruptionBudget (namespace/name), the fewest healthy pods it ever saw while the cluster ran: tests
   * assert a budget was honoured at every moment, not only at the end.
   */
  readonly pdbMinimums: Map<string, { cluster: string; minHealthy: number; desired: number }>;
  /** NodeClaim deletions and Kubernetes Events with their wall-clock time, oldest first (GET /_sim/timeline). */
  readonly timeline: WallEvent[];
  /** Every mutating AWS call that AWS accepted, in order (tests assert "exactly one UpdateClusterVersion"). */
  readonly calls: SimCall[];
  /** Mutating calls AWS refused (ResourceInUseException, InvalidParameterException, …), with `error` set. */
  readonly rejectedCalls: SimCall[];
  readonly faults: FaultState;
  /** Shift applied to EKS's support calendar (see scenario `calendarAsOf`). */
  readonly calendarShiftMs: number;
  /** http://127.0.0.1:PORT once the server listens; DescribeCluster.endpoint is `${baseUrl}/k8s/<cluster>`. */
  baseUrl: string;
  kube(cluster: string): SimKubeStore | undefined;
  cluster(name: string): SimCluster | undefined;
  offeredVersions(): string[];
  /** Logs a mutating call: into `calls`, or `rejectedCalls` when it carries an error. */
  record(call: Omit<SimCall, 'at'>): void;
  /** Deterministic pseudo-random in [0, 1) seeded by the scenario name. */
  random(): number;
  newId(): string;
  /** Runs fn after simMs of simulated time unless the world is stopped. */
  after(simMs: number, fn: () => void): void;
  sleep(simMs: number): Promise<void>;
  /** Registers a cleanup run by stop(). */
  onStop(fn: () => void): void;
  stop(): void;
  /** Controllers report progress here (node group phases, Fargate binds); the CLI prints them. */
  log(line: Record<string, unknown>): void;
}
