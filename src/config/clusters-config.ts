/**
 * clusters.yaml: which clusters the bot may drive, from which Slack channels, by whom. Validated at start-up;
 * an invalid file stops the bot with one line naming the bad field.
 */

import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { Cron } from 'croner';
import { ConfigYamlError, parseConfigYaml } from './config-yaml.js';
import { CLUSTER_GLOB, matchGlobs } from './cluster-glob.js';
import { plainIssueMessage, valueAt } from './plain-issues.js';
import { guardConfigOf, guardsSchema, type GuardConfig } from './guards-config.js';

/**
 * Every built-in default of clusters.yaml, stated once: the schema's `.default()`s, the merge of `defaults:` into
 * each cluster, the policy lookups, the planner's DEFAULT_POLICY and a job whose cluster left clusters.yaml read it.
 */
export const CLUSTER_DEFAULTS = {
  twoPersonRule: false,
  abortOnGateTimeout: false,
  karpenter: { upgradeBudget: '1' },
  addons: { resolveConflicts: 'PRESERVE' as const },
  /** A node group no `nodegroups:` key matches. */
  nodegroupPolicy: { strategy: 'in-place' as const },
  /** A self-managed group no `selfManaged:` key matches. */
  selfManagedPolicy: { strategy: 'rolling' as const, minHealthyPercentage: 90 },
  checks: {
    replicaMinimum: 2,
    ignoreNamespaces: ['kube-system'],
    helmReleases: false,
    insightsMaxAgeHours: 12,
    insightsRefreshWaitSeconds: 120,
  },
  /** Every kind of step asks an approver first unless `gates:` turns it off. */
  gates: { controlPlane: true, nodegroups: true, karpenter: true, selfManaged: true, fargate: true },
  reminderDays: [60, 30, 7],
  /** EKS's own default for rollbackConfig.timeoutMinutes (12 hours). */
  rollbackTimeoutMinutes: 720,
  digestTimezone: 'UTC',
};

const slackIds = z.array(
  z.string().regex(/^[UWS][A-Z0-9]{2,}$/, 'must be a Slack user ID (U…/W…) or user-group ID (S…)'),
);
const channelIds = z.array(z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'must be a Slack channel ID like C0123ABCD'));
const budget = z
  .string()
  .regex(/^((100|[0-9]{1,2})%|[0-9]+)$/, 'must be a Karpenter budget like "1" or "10%"');

/** An SSM parameter holding an AMI id per minor; `{minor}` is replaced by the hop's target, e.g. 1.26. */
const amiParameterField = z
  .string()
  .regex(/^\/[\w.\-/{}]+$/, 'must be an SSM parameter name like "/my/amis/{minor}/image_id"')
  .refine((name) => name.replace(/\{minor\}/g, '').match(/[{}]/) === null, 'may only contain the placeholder {minor}');
/** A fixed AMI per target minor: { "1.26": ami-0123456789abcdef0 }. */
const amiByMinor = z.record(
  z.string().regex(/^1\.\d{2}$/, 'must be a Kubernetes minor like "1.26"'),
  z.string().regex(/^ami-[0-9a-f]{8,17}$/, 'must be an AMI id like ami-0123456789abcdef0'),
);

const nodegroupPolicy = z
  .object({
    strategy: z.enum(['in-place', 'blue-green']).default(CLUSTER_DEFAULTS.nodegroupPolicy.strategy),
    /** For node groups pinned to a custom AMI: the launch template version to roll to. */
    launchTemplateVersion: z.string().optional(),
    /** For node groups pinned to a custom AMI: where the AMI of each target minor comes from. */
    amiParameter: amiParameterField.optional(),
    ami: amiByMinor.optional(),
    force: z.boolean().optional(),
  })
  .strict();

/** Self-managed node groups (Auto Scaling groups), keyed by group name like `nodegroups`. */
const selfManagedPolicy = z
  .object({
    strategy: z.enum(['rolling', 'instance-refresh']).default(CLUSTER_DEFAULTS.selfManagedPolicy.strategy),
    /** Instance refresh only: the share of the group kept InService while it replaces instances. */
    minHealthyPercentage: z.number().int().min(0).max(100).default(CLUSTER_DEFAULTS.selfManagedPolicy.minHealthyPercentage),
    amiParameter: amiParameterField.optional(),
    ami: amiByMinor.optional(),
  })
  .strict();

const maintenanceWindow = z
  .object({
    days: z.array(z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])).min(1),
    start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (UTC)'),
    end: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (UTC)'),
  })
  .strict();

/** Per-check settings (docs/finding-codes.md). */
const checkSettingsFields = z
  .object({
    /** AVL001: workloads with fewer replicas than this on nodes the plan replaces. */
    replicaMinimum: z.number().int().min(1).max(100),
    /** Namespaces the workload-availability checks (AVL…) leave out. */
    ignoreNamespaces: z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name')),
    /** HLM…: decode Helm release secrets (needs list on Secrets). */
    helmReleases: z.boolean(),
    /** Insights older than this are refreshed before a plan or preflight (StartInsightsRefresh). */
    insightsMaxAgeHours: z.number().min(0).max(168),
    /** How long a plan waits for that refresh. */
    insightsRefreshWaitSeconds: z.number().int().min(0).max(900),
  });
const checkSettings = checkSettingsFields.partial().strict();

const isoInstant = z
  .string()
  .refine((text) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text) && !Number.isNaN(Date.parse(text)), 'must be a date like 2026-12-31 or an ISO time like 2026-12-31T18:00:00Z');

const waiverSchema = z
  .object({
    code: z.string().regex(/^[A-Z0-9]{2,4}\d{3}$/, 'must be a finding code like K8S004'),
    resource: z.string().min(1, 'must be a resource or a glob like deployment/orders/*'),
    reason: z.string().trim().min(10, 'must say why, in at least 10 characters'),
    expires: z.union([isoInstant, z.date().transform((date) => date.toISOString())]),
    approvedBy: z.string().min(1, 'must name who approved the waiver'),
  })
  .strict();

/** Fleet operations (docs/fleet.md): scheduled digests and support-deadline reminders. */
const cronSchedule = z.string().refine((pattern) => {
  try {
    return new Cron(pattern, { paused: true }).nextRun() !== null;
  } catch {
    return false;
  }
}, 'must be a cron schedule of 5 fields like "0 9 * * MON" (minute hour day-of-month month day-of-week)');
const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone like Europe/Berlin or UTC');
const digestSchema = z
  .object({
    channel: z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'must be a Slack channel ID like C0123ABCD'),
    schedule: cronSchedule,
    timezone: timeZone.default(CLUSTER_DEFAULTS.digestTimezone),
    clusters: z.array(z.string().regex(CLUSTER_GLOB, 'must be a cluster name or a glob like "prod-*" (letters, digits, -, _, * and ?)')).min(1).optional(),
  })
  .strict();
const remindersSchema = z
  .object({ daysBefore: z.array(z.number().int().min(1, 'must be whole days of at least 1').max(400, 'must be at most 400 days')).max(10) })
  .strict();

/** Which kinds of step ask an approver before they act (clusters.yaml `gates:`, per key over `defaults:`). */
const gateSwitches = z.object({ controlPlane: z.boolean(), nodegroups: z.boolean(), karpenter: z.boolean(), selfManaged: z.boolean(), fargate: z.boolean() });

const clusterFields = {
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region like us-west-2'),
  roleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, 'must be an IAM role ARN').optional(),
  channels: channelIds,
  requesters: slackIds,
  approvers: slackIds,
  twoPersonRule: z.boolean(),
  karpenter: z.object({ upgradeBudget: budget.default(CLUSTER_DEFAULTS.karpenter.upgradeBudget) }).strict(),
  nodegroups: z.record(z.string(), nodegroupPolicy),
  selfManaged: z.record(z.string(), selfManagedPolicy),
  addons: z.object({ resolveConflicts: z.enum(['NONE', 'OVERWRITE', 'PRESERVE']).default(CLUSTER_DEFAULTS.addons.resolveConflicts) }).strict(),
  maintenanceWindow,
  gateTimeoutMinutes: z.number().int().positive(),
  abortOnGateTimeout: z.boolean(),
  /** rollbackConfig.timeoutMinutes of a control-plane rollback (EKS accepts 120–10080; default 720). */
  rollbackTimeoutMinutes: z.number().int().min(120, 'must be at least 120 (EKS accepts 120–10080 minutes)').max(10080, 'must be at most 10080 (7 days; EKS accepts 120–10080 minutes)'),
  checks: checkSettings,
  waivers: z.array(waiverSchema),
  reminders: remindersSchema,
  /** A real start needs a successful rehearsal of the same plan at most this old, e.g. "24h" (issue 15). */
  requireRehearsal: z.string().regex(/^[1-9]\d{0,3}h$/, 'must be a number of hours like "24h"'),
  /** Which kinds of step ask an approver first (issue 23); every kind does unless set to false here. */
  gates: gateSwitches.partial().strict(),
  /** Health signals watched while an upgrade acts (issue 29, docs/guards.md); a cluster's list replaces defaults:'. */
  guards: guardsSchema,
};

const clusterSchema = z
  .object({ name: z.string().regex(/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/, 'must be an EKS cluster name'), ...clusterFields })
  .partial({ roleArn: true, twoPersonRule: true, karpenter: true, nodegroups: true, selfManaged: true, addons: true, maintenanceWindow: true, gateTimeoutMinutes: true, abortOnGateTimeout: true, checks: true, waivers: true, rollbackTimeoutMinutes: true, reminders: true, channels: true, requesters: true, approvers: true, region: true, requireRehearsal: true, gates: true, guards: true })
  .strict();

const fileSchema = z
  .object({
    defaults: z.object(clusterFields).partial().strict().optional(),
    clusters: z.array(clusterSchema).min(1, 'must list at least one cluster'),
    digests: z.array(digestSchema).optional(),
  })
  .strict();

// The types are the schema's output (z.output), so a field is declared once: in the schema above.
export type NodegroupPolicy = z.output<typeof nodegroupPolicy>;
export type SelfManagedPolicy = z.output<typeof selfManagedPolicy>;
/** Every check setting, as a cluster has them after the merge (the file may set any of them). */
export type CheckSettings = z.output<typeof checkSettingsFields>;
/** A waiver as clusters.yaml writes it (expires: ISO date or time, UTC). */
export type ConfigWaiver = z.output<typeof waiverSchema>;
/** Which kinds of step ask an approver before they act (clusters.yaml `gates:`, per key over `defaults:`). */
export type GateSwitches = z.output<typeof gateSwitches>;
type ClusterFields = z.output<z.ZodObject<typeof clusterFields>>;

// CLUSTER_DEFAULTS' parts under the schema's types (it cannot name them itself: the schemas read it).
export const DEFAULT_NODEGROUP_POLICY: NodegroupPolicy = CLUSTER_DEFAULTS.nodegroupPolicy;
export const DEFAULT_SELF_MANAGED_POLICY: SelfManagedPolicy = CLUSTER_DEFAULTS.selfManagedPolicy;
export const DEFAULT_CHECK_SETTINGS: CheckSettings = CLUSTER_DEFAULTS.checks;
export const GATES_ON: GateSwitches = CLUSTER_DEFAULTS.gates;
export const DEFAULT_REMINDER_DAYS = CLUSTER_DEFAULTS.reminderDays;
/** EKS's own default for rollbackConfig.timeoutMinutes (12 hours). */
export const DEFAULT_ROLLBACK_TIMEOUT_MINUTES = CLUSTER_DEFAULTS.rollbackTimeoutMinutes;

/**
 * One cluster after the merge of `defaults:` (parseClustersConfig), or as code builds it. The fields the merge
 * always sets are required; the rest may be absent in configs built in code, and then CLUSTER_DEFAULTS apply.
 */
export interface ClusterConfig
  extends Pick<ClusterFields, 'region' | 'channels' | 'requesters' | 'approvers' | 'twoPersonRule' | 'karpenter' | 'nodegroups' | 'addons' | 'abortOnGateTimeout'>,
    Partial<Pick<ClusterFields, 'roleArn' | 'selfManaged' | 'maintenanceWindow' | 'gateTimeoutMinutes' | 'rollbackTimeoutMinutes' | 'waivers' | 'reminders'>> {
  name: string;
  /** Absent in configs built in code before checks existed: DEFAULT_CHECK_SETTINGS apply. */
  checks?: CheckSettings;
  /** requireRehearsal in hours (absent: no rehearsal needed). */
  requireRehearsalHours?: number;
  /** clusters.yaml `gates:` (absent: every kind is gated, GATES_ON). */
  gates?: GateSwitches;
  /** clusters.yaml `guards:` (absent or empty: nothing is watched while the upgrade acts). */
  guards?: GuardConfig[];
}

/** A scheduled digest: one message per tick to `channel` about `clusters` (names, resolved from the globs). */
export interface DigestConfig extends Omit<z.output<typeof digestSchema>, 'clusters'> {
  clusters: string[];
}

export interface ClustersConfig {
  clusters: ClusterConfig[];
  digests?: DigestConfig[];
}

/** A cluster no clusters file lists (a job whose cluster was removed while it ran): every default, no gate timeout. */
export function defaultClusterConfig(cluster: Pick<ClusterConfig, 'name' | 'region' | 'roleArn' | 'channels'>): ClusterConfig {
  const { twoPersonRule, abortOnGateTimeout, karpenter, addons } = CLUSTER_DEFAULTS;
  return { requesters: [], approvers: [], nodegroups: {}, twoPersonRule, abortOnGateTimeout, karpenter: { ...karpenter }, addons: { ...addons }, ...cluster };
}

export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

function describeIssue(source: string, issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  // Name the cluster rather than its index where we can: "clusters[1] (prod-eu).region".
  let where = path || '(top level)';
  if (issue.path[0] === 'clusters' && typeof issue.path[1] === 'number') {
    const name = (raw as { clusters?: Array<{ name?: unknown }> })?.clusters?.[issue.path[1]]?.name;
    if (typeof name === 'string') where = where.replace(`clusters[${issue.path[1]}]`, `clusters[${issue.path[1]}] (${name})`);
  }
  // And the guard by its name: "clusters[0] (demo).guards[1] (checkout available).prometheus.breachWhen".
  const guardAt = issue.path.indexOf('guards');
  if (guardAt >= 0 && typeof issue.path[guardAt + 1] === 'number') {
    const guardName = valueAt(raw, [...issue.path.slice(0, guardAt + 2), 'name']);
    const index = issue.path[guardAt + 1] as number;
    if (typeof guardName === 'string') where = where.replace(`guards[${index}]`, `guards[${index}] (${guardName})`);
  }
  return `${source}: ${where}: ${plainIssueMessage(issue, valueAt(raw, issue.path), fileSchema)}`;
}

/** Every problem of a file at once, one line each (a single one stays one line). */
function configErrorOf(lines: string[]): ConfigError {
  return new ConfigError(lines.length === 1 ? lines[0] : `${lines.length} problems:\n${lines.join('\n')}`);
}

/** Validates parsed YAML and applies `defaults:`; throws one ConfigError naming every bad field. */
export function parseClustersConfig(raw: unknown, source = 'clusters.yaml'): ClustersConfig {
  // An empty file, or one of comments only, is an empty YAML document: say so, not that null is not an object.
  if (raw === null || raw === undefined) {
    throw new ConfigError(`${source}: the file is empty (or holds only comments); list the clusters under \`clusters:\`, as clusters.example.yaml does (docs/configuration.md, "clusters.yaml").`);
  }
  const result = fileSchema.safeParse(raw);
  if (!result.success) throw configErrorOf(result.error.issues.map((issue) => describeIssue(source, issue, raw)));
  const problems: string[] = [];
  const defaults = result.data.defaults ?? {};
  const seen = new Set<string>();
  const clusters = result.data.clusters.map((entry, index): ClusterConfig => {
    if (seen.has(entry.name)) problems.push(`${source}: clusters[${index}].name: "${entry.name}" is listed twice`);
    seen.add(entry.name);
    const { requireRehearsal, ...merged } = { ...defaults, ...entry };
    for (const required of ['region', 'channels', 'requesters', 'approvers'] as const) {
      if (merged[required] === undefined) {
        problems.push(`${source}: clusters[${index}] (${entry.name}).${required}: is required (here or under defaults:)`);
      }
    }
    const { twoPersonRule, abortOnGateTimeout, karpenter, addons } = CLUSTER_DEFAULTS;
    // A field the cluster sets replaces the one under defaults:, which replaces the built-in default; the fields
    // below are merged otherwise. A missing required field was reported above (and the file is refused).
    return {
      twoPersonRule,
      abortOnGateTimeout,
      karpenter: { ...karpenter },
      addons: { ...addons },
      ...merged,
      region: merged.region!,
      channels: merged.channels!,
      requesters: merged.requesters!,
      approvers: merged.approvers!,
      // Per key: a cluster's own entries win over defaults:, which win over the built-in defaults.
      nodegroups: { ...(defaults.nodegroups ?? {}), ...(entry.nodegroups ?? {}) },
      selfManaged: { ...(defaults.selfManaged ?? {}), ...(entry.selfManaged ?? {}) },
      checks: { ...DEFAULT_CHECK_SETTINGS, ...(defaults.checks ?? {}), ...(entry.checks ?? {}) },
      gates: { ...GATES_ON, ...(defaults.gates ?? {}), ...(entry.gates ?? {}) },
      waivers: [...(defaults.waivers ?? []), ...(entry.waivers ?? [])],
      reminders: { daysBefore: [...new Set(merged.reminders?.daysBefore ?? DEFAULT_REMINDER_DAYS)].sort((a, b) => b - a) },
      // A cluster's guards replace the default list (a production cluster may watch other things than staging).
      guards: (entry.guards ?? defaults.guards ?? []).map(guardConfigOf),
      ...(requireRehearsal ? { requireRehearsalHours: Number(requireRehearsal.slice(0, -1)) } : {}),
    };
  });
  const digests = (result.data.digests ?? []).map((digest, index): DigestConfig => {
    const names = clusters.map((cluster) => cluster.name);
    for (const glob of digest.clusters ?? []) {
      if (matchGlobs(names, [glob]).length === 0) problems.push(`${source}: digests[${index}].clusters: "${glob}" matches no cluster in clusters.yaml`);
    }
    const chosen = digest.clusters ? matchGlobs(names, digest.clusters) : clusters.filter((cluster) => (cluster.channels ?? []).includes(digest.channel)).map((cluster) => cluster.name);
    if (chosen.length === 0 && !digest.clusters) {
      problems.push(`${source}: digests[${index}] (${digest.channel}): no cluster lists this channel in its channels; add clusters: ["prod-*"] or the channel to a cluster`);
    }
    return { channel: digest.channel, schedule: digest.schedule, timezone: digest.timezone, clusters: chosen };
  });
  if (problems.length > 0) throw configErrorOf(problems);
  return { clusters, ...(digests.length > 0 ? { digests } : {}) };
}

export function parseClustersYaml(text: string, source = 'clusters.yaml'): ClustersConfig {
  let raw: unknown;
  try {
    raw = parseConfigYaml(text);
  } catch (error) {
    if (!(error instanceof ConfigYamlError)) throw error;
    throw new ConfigError(yamlSyntaxError(source, text, error), { cause: error });
  }
  return parseClustersConfig(raw, source);
}

/**
 * A YAML syntax error with the line it is on:
 *   clusters.yaml: not valid YAML at line 4, column 2: bad indentation of a mapping entry
 *     4 |  region: us-east-1
 *       |  ^
 */
function yamlSyntaxError(source: string, text: string, error: ConfigYamlError): string {
  const { reason, at } = error.problem;
  if (!at) return `${source}: not valid YAML: ${reason}`;
  const line = text.split(/\r?\n/)[at.line - 1] ?? '';
  const gutter = String(at.line);
  return [
    `${source}: not valid YAML at line ${at.line}, column ${at.col}: ${reason}`,
    `  ${gutter} | ${line}`,
    `  ${' '.repeat(gutter.length)} | ${' '.repeat(Math.max(0, at.col - 1))}^`,
  ].join('\n');
}

export async function loadClustersConfig(path: string, setBy = 'set CLUSTERS_FILE to its path'): Promise<ClustersConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${path}: cannot read the clusters file (${(error as NodeJS.ErrnoException).code ?? 'error'}); ${setBy}`,
      { cause: error },
    );
  }
  return parseClustersYaml(text, path);
}

/**
 * Node-group policy by name: an exact key wins, then the longest `prefix*` key, then "*", then in-place.
 */
export function nodegroupPolicyFor(cluster: ClusterConfig, nodegroup: string): NodegroupPolicy {
  return policyByName(cluster.nodegroups, nodegroup) ?? { ...DEFAULT_NODEGROUP_POLICY };
}

/** Self-managed group policy by Auto Scaling group name, with the same matching; else CLUSTER_DEFAULTS' (rolling, 90 %). */
export function selfManagedPolicyFor(cluster: ClusterConfig, group: string): SelfManagedPolicy {
  return policyByName(cluster.selfManaged ?? {}, group) ?? { ...DEFAULT_SELF_MANAGED_POLICY };
}

function policyByName<T>(policies: Record<string, T>, name: string): T | undefined {
  if (policies[name]) return policies[name];
  const prefixes = Object.keys(policies)
    .filter((key) => key.endsWith('*') && key !== '*' && name.startsWith(key.slice(0, -1)))
    .sort((a, b) => b.length - a.length);
  if (prefixes[0]) return policies[prefixes[0]];
  return policies['*'];
}

export function findCluster(config: ClustersConfig, name: string): ClusterConfig | undefined {
  return config.clusters.find((cluster) => cluster.name === name);
}
