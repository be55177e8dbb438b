import { z } from 'zod';

/**
 * The shape of a simulator scenario (src/sim/scenarios/<name>.yaml): the AWS side (clusters, node groups, add-ons,
 * Fargate profiles, subnets, support calendar, faults) and the Kubernetes objects each cluster starts with. Raw
 * Kubernetes manifests are kept as-is (as `kubectl apply` would take them); everything AWS is validated here so a
 * typo fails at load time with the field's path.
 */

const minor = z.string().regex(/^1\.\d{2}$/, 'must be a Kubernetes minor like "1.30"');
const labels = z.record(z.string(), z.string());
const taintEffect = z.enum(['NO_SCHEDULE', 'NO_EXECUTE', 'PREFER_NO_SCHEDULE']);
const taint = z.object({ key: z.string().min(1), value: z.string().optional(), effect: taintEffect }).strict();
const cidr = z.string().regex(/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\/\d{1,2}$/, 'must be an IPv4 CIDR like 10.0.0.0/16');
const amiType = z.enum([
  'AL2_x86_64',
  'AL2_ARM_64',
  'AL2_x86_64_GPU',
  'AL2023_x86_64_STANDARD',
  'AL2023_ARM_64_STANDARD',
  'BOTTLEROCKET_x86_64',
  'BOTTLEROCKET_ARM_64',
  'CUSTOM',
]);

const subnetSchema = z
  .object({
    zone: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d[a-z]$/, 'must be an availability zone like us-west-2a'),
    cidr,
    /** Free IPs EC2 reports before any simulated node takes one (EKS needs 5 for a control-plane update). */
    availableIps: z.number().int().nonnegative().optional(),
    id: z.string().regex(/^subnet-[0-9a-f]+$/).optional(),
  })
  .strict();

const nodegroupSchema = z
  .object({
    name: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,62}$/, 'must be a node group name'),
    version: minor.optional(),
    amiType: amiType.default('AL2023_x86_64_STANDARD'),
    capacityType: z.enum(['ON_DEMAND', 'SPOT']).default('ON_DEMAND'),
    instanceTypes: z.array(z.string()).min(1).default(['m5.large']),
    scaling: z
      .object({ min: z.number().int().nonnegative(), max: z.number().int().positive(), desired: z.number().int().nonnegative() })
      .strict(),
    updateConfig: z
      .object({
        maxUnavailable: z.number().int().min(1).max(100).optional(),
        maxUnavailablePercentage: z.number().int().min(1).max(100).optional(),
      })
      .strict()
      .default({ maxUnavailable: 1 }),
    labels: labels.default({}),
    taints: z.array(taint).default([]),
    /** Availability zones of the cluster's subnets this group spans (default: all). */
    zones: z.array(z.string()).optional(),
    /** A custom-AMI launch template (amiType CUSTOM): EKS will not move it on a version bump. */
    launchTemplate: z
      .object({
        name: z.string(),
        imageId: z.string().regex(/^ami-[0-9a-f]+$/),
        version: z.number().int().positive().default(1),
        /** Versions created after the one in use (pending changes nobody rolled out); default: none. */
        latestVersion: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    tags: labels.optional(),
  })
  .strict();

const amiFamily = z.enum(['AL2', 'AL2023', 'Bottlerocket']);
const amiArch = z.enum(['x86_64', 'arm64']);

/**
 * A self-managed node group: an Auto Scaling group (named `asgName`, default `name`) with a launch template whose
 * default version boots the EKS-optimized AMI of `version` in the given family/arch/variant (or `imageId`, e.g. one
 * of the scenario's `images`); `pendingVersions` adds that many newer, not-default versions of the template.
 */
const selfManagedSchema = z
  .object({
    name: z.string(),
    asgName: z.string().regex(/^[\w.:/-]{1,255}$/, 'must be an Auto Scaling group name').optional(),
    version: minor.optional(),
    instanceType: z.string().default('m5.large'),
    count: z.number().int().nonnegative(),
    min: z.number().int().nonnegative().optional(),
    max: z.number().int().positive().optional(),
    ami: z.object({ family: amiFamily.default('AL2'), arch: amiArch.default('x86_64'), variant: z.enum(['standard', 'nvidia', 'neuron']).default('standard') }).strict().optional(),
    imageId: z.string().regex(/^ami-[0-9a-f]+$/).optional(),
    launchTemplate: z.object({ name: z.string().optional(), pendingVersions: z.number().int().nonnegative().default(0) }).strict().optional(),
    protectedFromScaleIn: z.boolean().default(false),
    labels: labels.default({}),
    taints: z.array(z.object({ key: z.string(), value: z.string().optional(), effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) }).strict()).default([]),
    zones: z.array(z.string()).optional(),
  })
  .strict();

const fargateProfileSchema = z
  .object({
    name: z.string(),
    selectors: z.array(z.object({ namespace: z.string(), labels: labels.optional() }).strict()).min(1),
  })
  .strict();

const addonSchema = z
  .object({ name: z.string(), version: z.string().regex(/^v\d+\.\d+\.\d+-eksbuild\.\d+$/, 'must be an add-on version like v1.19.3-eksbuild.1') })
  .strict();

const deprecatedApiSchema = z
  .object({
    /** The API the workloads still call, e.g. /apis/autoscaling/v2beta2/horizontalpodautoscalers. */
    usage: z.string(),
    replacedWith: z.string(),
    removedIn: minor,
    startServingReplacementVersion: minor,
    userAgent: z.string().default('kubectl/v1.25.16 (linux/amd64) kubernetes/a4d3d65'),
    requestsLast30Days: z.number().int().nonnegative().default(12),
    /**
     * The object making those calls (resource/namespace/name). While it exists and its last-applied apiVersion is
     * still the deprecated one, the insight keeps reporting it; re-applying it with the new API clears it.
     */
    resource: z
      .object({ resource: z.string(), namespace: z.string().optional(), name: z.string(), apiVersion: z.string() })
      .strict()
      .optional(),
  })
  .strict();

const karpenterNodeSchema = z
  .object({
    nodePool: z.string().default('default'),
    instanceType: z.string(),
    zone: z.string(),
    capacityType: z.enum(['on-demand', 'spot']).default('on-demand'),
    /** The image the node runs, for a class whose selector the simulator cannot resolve (tags: private images). */
    imageId: z.string().optional(),
  })
  .strict();

const manifest = z
  .object({ apiVersion: z.string(), kind: z.string(), metadata: z.looseObject({ name: z.string() }) })
  .loose();

const clusterSchema = z
  .object({
    name: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/, 'must be an EKS cluster name'),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region like us-west-2'),
    version: minor,
    platformVersion: z.string().regex(/^eks\.\d+$/, 'must look like eks.12').optional(),
    status: z.enum(['ACTIVE', 'FAILED', 'CREATING', 'UPDATING']).default('ACTIVE'),
    supportType: z.enum(['STANDARD', 'EXTENDED']).default('EXTENDED'),
    /** The cluster's Kubernetes API refuses connections (for status tests). */
    unreachable: z.boolean().default(false),
    vpc: z
      .object({ cidr, subnets: z.array(subnetSchema).min(1), id: z.string().optional() })
      .strict()
      .optional(),
    tags: labels.default({}),
    health: z.array(z.object({ code: z.string(), message: z.string(), resourceIds: z.array(z.string()).optional() }).strict()).default([]),
    nodegroups: z.array(nodegroupSchema).default([]),
    selfManaged: z.array(selfManagedSchema).default([]),
    fargateProfiles: z.array(fargateProfileSchema).default([]),
    addons: z.array(addonSchema).default([]),
    deprecatedApis: z.array(deprecatedApiSchema).default([]),
    /**
     * The cluster reached `version` by an in-place upgrade from this minor that ended `hoursAgo` hours before the
     * scenario starts: a version rollback to it is possible for 7 days after that (EKS: not for a cluster created
     * at its version).
     */
    upgradedFrom: z.object({ version: minor, hoursAgo: z.number().min(0).default(24) }).strict().optional(),
    /**
     * EKS Auto Mode (computeConfig enabled): `nodes` are Auto Mode nodes (label eks.amazonaws.com/compute-type=auto,
     * karpenter.sh/nodepool) that EKS itself moves to the control plane's version after an upgrade, and back first
     * on a version rollback.
     */
    computeConfig: z
      .object({
        nodePools: z.array(z.enum(['general-purpose', 'system'])).default(['general-purpose', 'system']),
        /** Minor the nodes run at start (default: the cluster's). */
        nodeVersion: minor.optional(),
        nodes: z
          .array(z.object({ nodePool: z.string().default('general-purpose'), instanceType: z.string().default('c6a.large'), zone: z.string() }).strict())
          .default([]),
      })
      .strict()
      .optional(),
    /** How old the upgrade insights are at start (EKS rescans every 24 h; StartInsightsRefresh rescans on demand). */
    insightsAgeHours: z.number().min(0).max(24).default(0),
    karpenter: z
      .object({
        nodePools: z.array(manifest).default([]),
        ec2NodeClasses: z.array(manifest).default([]),
        nodes: z.array(karpenterNodeSchema).default([]),
      })
      .strict()
      .optional(),
    kubernetes: z.array(manifest).default([]),
  })
  .strict();

export const faultsSchema = z
  .object({
    /** Added to every AWS API answer, in real milliseconds. */
    latencyMs: z.number().nonnegative().optional(),
    /** Share (0..1) of AWS API calls answered 429 ThrottlingException. */
    throttleRate: z.number().min(0).max(1).optional(),
    /** Share (0..1) of AWS API calls answered 500 ServerException / 503 ServiceUnavailableException. */
    errorRate: z.number().min(0).max(1).optional(),
    /** The next UpdateClusterVersion (of this cluster, or any) ends Failed with this error. */
    failNextClusterUpdate: z
      .object({ cluster: z.string().optional(), errorCode: z.string().default('Unknown'), errorMessage: z.string().optional() })
      .strict()
      .optional(),
    /** Nodes launched from now on never report Ready (managed node groups: NodeCreationFailure). */
    nodesNeverReady: z.boolean().optional(),
    /** Answers lost after the action is done, per mutating operation: { UpdateClusterVersion: 1 } (the connection closes). */
    dropAnswers: z.record(z.string(), z.number().int().nonnegative()).optional(),
    /** Rates for one service (eks, ssm, ec2, autoscaling, sts, monitoring = CloudWatch) instead of the ones above, e.g. { eks: { throttleRate: 0.2 } }. */
    services: z
      .partialRecord(z.enum(['eks', 'ssm', 'ec2', 'autoscaling', 'sts', 'monitoring']), z.object({ throttleRate: z.number().min(0).max(1).optional(), errorRate: z.number().min(0).max(1).optional() }).strict())
      .optional(),
  })
  .strict();

/** An AMI of the account that is not an EKS-optimized one (a team's own build), optionally published in SSM. */
const imageSchema = z
  .object({
    id: z.string().regex(/^ami-[0-9a-f]+$/, 'must be an AMI id like ami-0123456789abcdef0'),
    name: z.string().optional(),
    minor,
    family: amiFamily.default('AL2'),
    arch: amiArch.default('x86_64'),
    /** An SSM parameter whose value is this image id, e.g. /my/amis/1.26/image_id. */
    parameter: z.string().regex(/^\/[\w./-]+$/, 'must be an SSM parameter name like /my/amis/1.26/image_id').optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string(),
    images: z.array(imageSchema).optional(),
    description: z.string().optional(),
    accountId: z.string().regex(/^\d{12}$/, 'must be a 12-digit AWS account id').default('111122223333'),
    /**
     * The date the scenario pretends it is for support dates: EKS's calendar is shifted so that, at start, each
     * version has as much support left as it had on this day (the workshop's 1.25 is in extended support). The shift
     * is whole days counted from this moment to the simulator's start, so support dates stay calendar days; an ISO
     * time (as a twin's snapshot writes it) sets where the days are counted from.
     */
    calendarAsOf: z.union([z.iso.date(), z.iso.datetime()]).optional(),
    eks: z
      .object({
        /** Minors EKS offers (DescribeClusterVersions); default: those the shifted calendar still supports. */
        versions: z.array(minor).optional(),
        controlPlaneUpdateMinutes: z.number().positive().default(10),
        addonUpdateSeconds: z.number().positive().default(60),
        nodeReadySeconds: z.number().positive().default(90),
        nodegroupCreateMinutes: z.number().positive().default(3),
        /** UpdateClusterVersion refuses (InvalidRequestException) while an UPGRADE_READINESS insight is ERROR, unless force. */
        insightsBlockUpgrades: z.boolean().default(false),
      })
      .strict()
      .default({ controlPlaneUpdateMinutes: 10, addonUpdateSeconds: 60, nodeReadySeconds: 90, nodegroupCreateMinutes: 3, insightsBlockUpgrades: false }),
    faults: faultsSchema.default({}),
    clusters: z.array(clusterSchema).min(1, 'must define at least one cluster'),
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioCluster = z.infer<typeof clusterSchema>;
export type ScenarioNodegroup = z.infer<typeof nodegroupSchema>;
export type ScenarioSelfManaged = z.infer<typeof selfManagedSchema>;
export type ScenarioFaults = z.infer<typeof faultsSchema>;
export type ScenarioDeprecatedApi = z.infer<typeof deprecatedApiSchema>;
export type ScenarioManifest = z.infer<typeof manifest>;
