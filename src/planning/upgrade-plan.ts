import type { PlanContext } from './plan-context.js';
import type { Finding } from './finding.js';

/**
 * The shape of an upgrade plan, as the renderers and the JSON output (`plan --output json`) carry it. A plan is
 * hop by hop; each hop's steps run in phase order — preflight, gate, control plane, add-ons, data plane, verify —
 * and say what they act on, with which strategy, whether a person approves first (`gate`) or acts (`manual`),
 * the commands a person would run, and a rough duration.
 */
export type StepKind =
  | 'preflight'
  | 'gate'
  | 'control-plane'
  | 'addon'
  | 'managed-nodegroup'
  | 'karpenter'
  | 'self-managed'
  | 'fargate'
  | 'verify';

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
  /** The question a person must approve before the step acts. */
  gate?: string;
  /** The bot does not do this; a person does, and the job waits. */
  manual?: boolean;
  /** Rough duration in minutes. */
  estimateMinutes: number;
  details: string[];
  /** Commands that do the step by hand (the Markdown playbook turns them into checkboxes). */
  commands: string[];
  /** Under the skew policy this data-plane step may wait for the hop to this minor (incremental strategy). */
  deferrableTo?: string;
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
}

/** "~45 min", "~2 h 10 min". */
export function formatMinutes(minutes: number): string {
  if (minutes < 60) return `~${Math.max(1, Math.round(minutes))} min`;
  const hours = Math.floor(minutes / 60);
  const rest = Math.round(minutes % 60);
  return rest === 0 ? `~${hours} h` : `~${hours} h ${rest} min`;
}
