import type { Finding } from './finding.js';
import type { PlanContext } from './plan-context.js';

/**
 * The shape of an upgrade plan, as the renderers, the JSON output (`plan --output json`) and the upgrade job carry
 * it. A plan is hop by hop; each hop's lines run in the order of HOP_STEP_ORDER — preflight, gate, control plane,
 * add-ons, data plane, verify — and say what they act on, with which strategy, whether a person approves first
 * (`gate`) or acts (`manual`), the commands a person would run, a rough duration, and the per-resource actions the
 * job is held to. The job's steps are the plan's lines grouped by kind (src/planning/planner/job-steps.ts): one StepKind
 * for both.
 */
export type StepKind =
  | 'preflight'
  | 'gate'
  /** Karpenter NodePools whose EC2NodeClass follows the cluster version get the upgrade budget before the control plane moves. */
  | 'karpenter-budget'
  | 'control-plane'
  | 'addons'
  | 'managed-nodegroups'
  | 'karpenter'
  | 'self-managed'
  | 'fargate'
  | 'verify';

/** Step kinds in the order they run within a hop. */
export const HOP_STEP_ORDER: readonly StepKind[] = [
  'preflight',
  'gate',
  'karpenter-budget',
  'control-plane',
  'addons',
  'managed-nodegroups',
  'karpenter',
  'self-managed',
  'fargate',
  'verify',
];

/**
 * Step kinds in the order a rollback runs them (issue 10): kubelets may never be newer than the API server, so the
 * data plane goes back to N-1 first, then the add-ons N-1 does not support (EKS's rollback-readiness insights
 * refuse the rollback while kube-proxy or an add-on is newer than N-1, and accepts N-1's versions during the
 * window), then (after the gate) the control plane, then Fargate pods (they take the control plane's version when
 * scheduled).
 */
export const ROLLBACK_STEP_ORDER: readonly StepKind[] = [
  'preflight',
  'managed-nodegroups',
  'karpenter',
  'self-managed',
  'addons',
  'gate',
  'control-plane',
  'fargate',
  'verify',
];

/**
 * What the job does to one resource, decided by the same pure decider at plan time and when the step acts:
 * - control plane: `update-control-plane`; add-ons: `update-addon` (one per version; the VPC CNI one minor at a time);
 * - managed node groups: `update-in-place`, `roll-launch-template` (custom AMI, version from clusters.yaml),
 *   `blue-green`, `custom-ami-gate` (custom AMI without a version: a gate asks to skip or abort);
 * - Karpenter: `hold-budget` (NodePool, before the control plane), `pin-ami` / `follow-alias` / `pinned-alias`
 *   (EC2NodeClass) or `karpenter-manual` (the operator supplies the AMI);
 * - self-managed groups: `roll-self-managed` per Auto Scaling group (asg/<name>: a launch template version with the
 *   target AMI, then its nodes replaced), or `report-manual` when no Auto Scaling group of theirs could be read;
 * - Fargate: `restart-workload`; bare Fargate pods: `report-manual`.
 */
export type ActionKind =
  | 'update-control-plane'
  | 'update-addon'
  | 'update-in-place'
  | 'roll-launch-template'
  | 'blue-green'
  | 'custom-ami-gate'
  | 'hold-budget'
  | 'pin-ami'
  | 'follow-alias'
  | 'pinned-alias'
  | 'karpenter-manual'
  | 'restart-workload'
  | 'roll-self-managed'
  | 'report-manual';

export interface PlannedAction {
  /** cluster/x, addon/vpc-cni, nodegroup/blue-mng, ec2nodeclass/default, nodepool/default, deployments/ns/name, asg/x (a self-managed group's Auto Scaling group), selfmanaged/x */
  resource: string;
  action: ActionKind;
  from?: string;
  to?: string;
  /** Why this action, in one sentence (shown on the gate card and in the summary). */
  reason: string;
  /** The question the job asks an approver before it acts on this resource (the plan line's `gate`). */
  gate?: string;
  /**
   * Structured facts of the action, so nothing reads them back out of `reason` or a title: the EC2NodeClass's AMI
   * alias (follow-alias, pinned-alias, a rollback's pin-ami of an aliased class), the NodePools that drift with it,
   * the AMI id the job points a class at, the launch template version clusters.yaml names. Optional: job data
   * written before they existed (jobs/worker/job-data-schema.ts) carries none, and nothing in a step needs them.
   */
  alias?: string;
  pools?: string[];
  amiId?: string;
  launchTemplateVersion?: string;
}

/** A gate the job asks only when something blocks (a drain held by a PDB, a custom AMI without a source). */
export interface ConditionalGate {
  /** "a PodDisruptionBudget blocks the drain" — rendered "only if …". */
  when: string;
  question: string;
}

/** One step of the upgrade job: the plan's lines of one kind in one hop, with their actions. */
export interface PlannedStep {
  /** Stable within the job: "h1-preflight", "h1-gate-control-plane", "h2-control-plane". */
  id: string;
  kind: StepKind;
  /** 1-based hop number. */
  hop: number;
  from: string;
  to: string;
  title: string;
  /**
   * The per-resource actions the plan named for this step. Absent for a job planned without a snapshot (schema 1
   * jobs, engine tests): the step then decides from the world alone.
   */
  actions?: PlannedAction[];
}

export type StepPhase = 'preflight' | 'control-plane' | 'addons' | 'data-plane' | 'verify';

export type StepStrategy = 'in-place' | 'blue-green' | 'drift' | 'rollout-restart' | 'manual';

export interface PlanStep {
  kind: StepKind;
  phase: StepPhase;
  title: string;
  /** What the step acts on: cluster/x, addon/coredns, nodegroup/initial, ec2nodeclass/default, … */
  resource?: string;
  from?: string;
  to?: string;
  strategy?: StepStrategy;
  /** The question a person must approve before the step acts (always asked, on a run where nothing blocks). */
  gate?: string;
  /** Set when clusters.yaml turned this kind's gate off: the sentence the plan shows instead of the question. */
  gateOff?: string;
  /** Gates asked only when something blocks, listed apart. */
  conditionalGates?: ConditionalGate[];
  /** The bot does not do this; a person does, and the job waits. */
  manual?: boolean;
  /** Rough duration in minutes. */
  estimateMinutes: number;
  details: string[];
  /** Commands that do the step by hand (the Markdown playbook turns them into checkboxes). */
  commands: string[];
  /** Under the skew policy this data-plane step may wait for the hop to this minor (incremental strategy). */
  deferrableTo?: string;
  /** What the job does to each resource of this line (a Fargate line names several workloads). */
  actions: PlannedAction[];
}

export interface PlanHop {
  from: string;
  to: string;
  steps: PlanStep[];
  estimateMinutes: number;
}

export interface IncrementalStrategy {
  /** Whether any data-plane work can wait for a later hop. */
  possible: boolean;
  /** Hop targets whose data-plane steps still run under the incremental strategy. */
  dataPlaneHops: string[];
  savesMinutes: number;
  note: string;
}

export interface UpgradePlan {
  cluster: string;
  region: string;
  from: string;
  to: string;
  /** ISO time the snapshot was read. */
  generatedAt: string;
  /** True when any finding is an error: the upgrade job would stop at preflight. */
  blocking: boolean;
  findings: Finding[];
  hops: PlanHop[];
  skewRule: string;
  /** Where strategies and budgets came from (clusters.yaml or defaults). */
  policySource: 'clusters.yaml' | 'defaults';
  incremental: IncrementalStrategy;
  estimateMinutes: number;
  /** How old the insights were and which waivers were counted (src/planning/plan-context.ts). */
  context?: PlanContext;
  /** The guards that watch every step that acts (clusters.yaml `guards:`, issue 29), in words. */
  guards?: string[];
  /** Set on a rollback plan (issue 10): `to` is one minor back, steps in ROLLBACK_STEP_ORDER. */
  rollback?: {
    until?: number;
    timeoutMinutes: number;
    /** EKS can never roll this cluster back (RBK001 window closed, RBK002 not upgraded in place): why; no steps then. */
    impossible?: { code: string; reason: string; remedy: string };
  };
}

/** "~45 min", "~2 h 10 min". */
export function formatMinutes(minutes: number): string {
  if (minutes < 60) return `~${Math.max(1, Math.round(minutes))} min`;
  const hours = Math.floor(minutes / 60);
  const rest = Math.round(minutes % 60);
  return rest === 0 ? `~${hours} h` : `~${hours} h ${rest} min`;
}
