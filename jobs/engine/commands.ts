import type { CreateNodegroupRequest } from '@aws-sdk/client-eks';
import type { GateSpec } from './gate-step.js';
import type { DrainRemedy } from '../../src/planning/workloads/find-drain-blockers.js';
import type { Budget } from '../../src/planning/workloads/disruption-budget.js';
import type { ActedAction } from '../../src/planning/upgrade-job-data.js';

/**
 * What a step asks the executor (jobs/engine/execute-commands.ts) to do. A step reads the world, a pure decider turns what
 * it read into commands, and the one executor carries them out — or, in a dry run, describes them (describeCommand,
 * in describe-command.ts) instead. Commands are plain data: everything the call needs, the key its update is recorded under in job.data
 * (`record`, the same keys the steps used before commands, so a job saved by an older worker resumes), and the
 * words the timeline says about it.
 */
export type Command =
  | UpdateClusterVersionCommand
  | UpdateAddonCommand
  | UpdateNodegroupVersionCommand
  | RollLaunchTemplateCommand
  | ReplaceNodegroupCommand
  | CreateNodegroupCommand
  | CancelRollbackCommand
  | TerminateInstanceCommand
  | StartInstanceRefreshCommand
  | CreateLaunchTemplateVersionCommand
  | PointGroupCommand
  | ScaleForDrainCommand
  | DrainHookCommand
  | CancelInstanceRefreshCommand
  | ForceDrainCommand
  | CordonNodeCommand
  | DeleteNodegroupCommand
  | RollSelfManagedCommand
  | DriveKarpenterCommand
  | SetNodePoolBudgetsCommand
  | PointNodeClassCommand
  | HoldBudgetsCommand
  | AdoptUpdateCommand
  | RestartWorkloadCommand
  | RestartWorkloadsCommand
  | VerifyHopCommand
  | AskGateCommand
  | ReopenGateCommand
  | StopAtFindingsCommand
  | SaveStateCommand
  | RecordActedCommand
  | SafePointCommand;

/** UpdateClusterVersion, recorded under `record` before it is followed; ResourceInUseException adopts the running one. */
export interface UpdateClusterVersionCommand {
  kind: 'update-cluster-version';
  cluster: string;
  to: string;
  /** The idempotency token (requestToken): a retried call whose answer was lost gets its first update back. */
  token: string;
  force?: boolean;
  /** A rollback (EKS VersionRollback) with rollbackConfig.timeoutMinutes. */
  rollback?: { timeoutMinutes: number };
  record: string;
  /** Timeline key suffix of the "issued" event. */
  event: string;
  /** Said after the call in the "issued" event (why it was forced, what can still stop it). */
  notes: string[];
  after?: string;
}

/** UpdateAddon of one add-on to one version (VPC CNI moves one minor per update). */
export interface UpdateAddonCommand {
  kind: 'update-addon';
  cluster: string;
  addon: string;
  from: string;
  to: string;
  /** Where the add-on goes after this update, when `to` is one stop on the way. */
  goal?: string;
  resolveConflicts?: 'NONE' | 'OVERWRITE' | 'PRESERVE';
  token: string;
  record: string;
  event: string;
}

/** UpdateNodegroupVersion of one managed node group, in place (to a version, or to a launch template version). */
export interface UpdateNodegroupVersionCommand {
  kind: 'update-nodegroup-version';
  cluster: string;
  nodegroup: string;
  /** The group's version now (as a later hop of a dry run reads it: where the earlier hops would leave it). */
  from?: string;
  to: string;
  request: { version?: string; launchTemplate?: { id?: string; name?: string; version?: string } };
  force?: boolean;
  token: string;
  record: string;
  event: string;
}

/**
 * A custom-AMI group's roll (issue 13): the launch template version with the target AMI — `version` when one
 * already carries it, else one is created — then UpdateNodegroupVersion to it. The step carries it out in those
 * two parts (custom-ami-version.ts, then update-nodegroup-version); a dry run describes it whole.
 */
export interface RollLaunchTemplateCommand {
  kind: 'roll-launch-template';
  nodegroup: string;
  version?: number | string;
  imageId: string;
}

/**
 * A blue/green node group (blue-green-nodegroup.ts): create `green` as a clone of `blue` at `to`, wait until its
 * nodes are Ready, ask, then delete `blue`. The step carries it out phase by phase (each decided by
 * decide-blue-green-phase.ts); a dry run describes it whole.
 */
export interface ReplaceNodegroupCommand {
  kind: 'replace-nodegroup';
  blue: string;
  green: string;
  to: string;
}

/**
 * A self-managed group's roll (self-managed-step.ts): a launch template version with `imageId`, the group pointed at
 * it, its instances replaced — by the bot one node at a time, or by an instance refresh. The step carries it out
 * action by action (decide-self-managed-action.ts); a dry run describes it whole.
 */
export interface RollSelfManagedCommand {
  kind: 'roll-self-managed';
  group: string;
  imageId: string;
  /** Where the AMI id came from (the SSM parameter, or clusters.yaml). */
  source: string;
  instances: number;
  strategy: 'rolling' | 'instance-refresh';
  minHealthyPercentage?: number;
}

/**
 * The Karpenter step's plan (karpenter-step.ts): the NodePool budgets and EC2NodeClass AMIs it changes (`changes`,
 * one sentence each), and what it leaves to the operator (`reports`). The step patches and follows the drift
 * itself; a dry run lists them.
 */
export interface DriveKarpenterCommand {
  kind: 'drive-karpenter';
  changes: string[];
  reports: string[];
}

/**
 * A NodePool's disruption budgets set to `budgets` (null removes the field: it was absent before the job) by merge
 * patch — custom resources take no strategic merge, and a merge patch replaces the list as a whole. The pool is read
 * first and patched only when its budgets differ, so a repeat after a crash changes nothing.
 */
export interface SetNodePoolBudgetsCommand {
  kind: 'set-nodepool-budgets';
  pool: string;
  budgets: Budget[] | null;
}

/**
 * An EC2NodeClass's amiSelectorTerms by merge patch, read first and patched only when they differ; Karpenter then
 * marks its nodes drifted (AMIDrift). A class that no longer exists fails the step with what to do.
 */
export interface PointNodeClassCommand {
  kind: 'point-node-class';
  nodeClass: string;
  terms: Array<Record<string, unknown>>;
  /** `report`: a class that no longer exists is no failure; the executor answers `gone` (the rollback's alias restore says so). */
  whenGone?: 'report';
}

/** The upgrade budget set on NodePools before the control plane moves (karpenter-budget-step.ts), one line a pool. */
export interface HoldBudgetsCommand {
  kind: 'hold-budgets';
  pools: string[];
}

/**
 * CreateNodegroup of a blue group's green clone (the request carries its token). ResourceInUseException means the
 * clone exists already — this job's own call, whose answer was lost — and the step's next read finds it.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html (ResourceInUseException)
 */
export interface CreateNodegroupCommand {
  kind: 'create-nodegroup';
  request: CreateNodegroupRequest;
  blue: string;
  record: string;
  event: string;
}

/**
 * DeleteNodegroup of a blue group. ResourceInUseException while the group reads DELETING (or is gone) is this job's
 * own call whose answer was lost, and is adopted; any other conflict stands. `save` is written to the step state
 * once EKS took the call, before the timeline says so.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_DeleteNodegroup.html (ResourceInUseException)
 */
export interface DeleteNodegroupCommand {
  kind: 'delete-nodegroup';
  cluster: string;
  nodegroup: string;
  record: string;
  event: string;
  save?: Record<string, unknown>;
}

/**
 * CancelUpdate of an Auto Mode cluster's rollback while EKS still rolls its nodes back (an Abort by `by`); the
 * nodes return to `from`. EKS may refuse (the control plane already moving): the job then waits for the update.
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_CancelUpdate.html
 */
export interface CancelRollbackCommand {
  kind: 'cancel-rollback';
  cluster: string;
  updateId: string;
  token: string;
  by: string;
  from: string;
}

/**
 * TerminateInstanceInAutoScalingGroup of a drained self-managed node, keeping the desired capacity (the group
 * launches its replacement). Recorded in the step state before the call (by the step); an instance already on its
 * way out — this job's own call whose answer was lost — is adopted.
 * https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_TerminateInstanceInAutoScalingGroup.html
 */
export interface TerminateInstanceCommand {
  kind: 'terminate-instance';
  group: string;
  instanceId: string;
  node: string;
  /** Pods the drain evicted, for the timeline line. */
  evicted: number;
}

/**
 * StartInstanceRefresh of a self-managed group (SkipMatching, MinHealthyPercentage from clusters.yaml). A refresh
 * already running — this job's own call whose answer was lost — is adopted (InstanceRefreshInProgress).
 * https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_StartInstanceRefresh.html
 */
export interface StartInstanceRefreshCommand {
  kind: 'start-instance-refresh';
  group: string;
  minHealthyPercentage: number;
}

/**
 * A launch template version that differs from `sourceVersion` only in its image id, for a managed group pinned to a
 * custom AMI or a self-managed group (`group`); the timeline says so under `event` (`{version}` in it becomes the
 * new version). Not adopted here: a re-run after a crash finds the version by its image id in the step's read
 * (custom-ami-version.ts, self-managed-world.ts) and never asks for another.
 */
export interface CreateLaunchTemplateVersionCommand {
  kind: 'create-launch-template-version';
  group: string;
  launchTemplateId: string;
  /** The template as the thread names it (its name, else its id). */
  template: string;
  sourceVersion: string;
  imageId: string;
  /** Where the AMI id came from (the SSM parameter, clusters.yaml). */
  source: string;
  description: string;
  event: string;
}

/**
 * A self-managed group pointed at a launch template version (SetLaunchTemplate: UpdateAutoScalingGroup) and the
 * template's default set (ModifyLaunchTemplate): the default first when the group moves on, after the group when it
 * goes back (`restore`: an abort before any node moved). Both calls set a value, so a repeat after a lost answer or
 * a crash lands where the first call did. `save` is written to the step state once both are done, then the
 * timeline says `text` (a progress line; a note when restoring).
 */
export interface PointGroupCommand {
  kind: 'point-group';
  group: string;
  launchTemplateId: string;
  version: string;
  defaultVersion?: number;
  restore?: boolean;
  save: Record<string, unknown>;
  event: string;
  text: string;
}

/**
 * The termination lifecycle hook an instance refresh waits on while the bot drains each node
 * (jobs/steps/self-managed/self-managed-refresh.ts): `put` it on the group (PutLifecycleHook replaces a hook of the
 * same name, so a repeat is harmless), `complete` the held instance's wait once its node is drained, `remove` it when
 * the refresh ends. A ValidationError to complete (the heartbeat ran out and Auto Scaling went on by itself) or to
 * remove (the hook is gone already: this job's own call whose answer was lost) is adopted.
 * https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CompleteLifecycleAction.html
 */
export type DrainHookCommand =
  | { kind: 'put-drain-hook'; group: string; hook: string; heartbeatSeconds: number }
  | { kind: 'complete-drain-hook'; group: string; hook: string; instanceId: string }
  | { kind: 'remove-drain-hook'; group: string; hook: string };

/** CancelInstanceRefresh after an Abort; a refresh already over (nothing to cancel) is no failure. */
export interface CancelInstanceRefreshCommand {
  kind: 'cancel-instance-refresh';
  group: string;
}

/**
 * A blocked drain's safe remedy, chosen at its card: the Deployment scaled (a merge patch to a count, so a repeat
 * changes nothing) and waited on, bounded, until the extra replica is available (jobs/engine/drain-inspection.ts).
 */
export interface ScaleForDrainCommand {
  kind: 'scale-for-drain';
  remedy: DrainRemedy;
}

/** A node marked unschedulable before its drain (as kubectl cordon): read first, patched only when it is not yet. */
export interface CordonNodeCommand {
  kind: 'cordon-node';
  node: string;
}

/**
 * Force at a blocked drain: the pods the PDBs protect on `nodes` are deleted outright (a DELETE is not an eviction),
 * read again now rather than taken from the card. A repeat deletes only what still blocks.
 */
export interface ForceDrainCommand {
  kind: 'force-drain';
  nodes: string[];
  by: string;
  reason?: string;
}

/**
 * Follow an update already under way (found by the step's read) instead of starting another: recorded as adopted
 * under `record` unless it is this job's own (`ours`), with a note in the timeline when `note` is given.
 */
export interface AdoptUpdateCommand {
  kind: 'adopt-update';
  updateId: string;
  operation: string;
  target: string;
  record: string;
  ours: boolean;
  note?: { event: string; text: string };
}

/** `kubectl rollout restart` of one workload: the restartedAt annotation (chosen and saved before) on its pod template. */
export interface RestartWorkloadCommand {
  kind: 'restart-workload';
  resource: 'deployments' | 'statefulsets';
  namespace: string;
  name: string;
  restartedAt: string;
}

/** The restarts a Fargate step starts with, and the pods it leaves to the operator (a dry run describes them). */
export interface RestartWorkloadsCommand {
  kind: 'restart-workloads';
  workloads: string[];
  to: string;
  manual: string[];
}

/** The checks of a hop's verify step. */
export interface VerifyHopCommand {
  kind: 'verify-hop';
  cluster: string;
  to: string;
}

/**
 * An approval card, asked by the executor (jobs/engine/gate-step.ts awaitGate posts it once, parks the job until it
 * is answered, and puts the answer on the timeline). `before` is what the step reads again first, for the dry run
 * to say so. With `skip`, an answer that is not Abort (the card offers Force) skips the resource: the executor
 * records it as skipped (acted, and `final: 'skipped'` in the step state under `skip.stateKey`, before the step goes
 * on) and hands back the note (`skipped`), "<why>, skipped by <@who>: <reason>".
 */
export interface AskGateCommand {
  kind: 'ask-gate';
  gate: GateSpec;
  before?: string;
  /** What a dry run says when the card is not the usual question (a group it would stop at, and why). */
  said?: string;
  skip?: GateSkip;
}

/** What a Force at a skip gate records (AskGateCommand.skip). */
export interface GateSkip {
  resource: string;
  action: ActedAction['action'];
  /** The resource's state in the step state, saved with `final: 'skipped'` and the note. */
  stateKey: string;
  state: object;
  /** The note's opening words ("custom AMI", "no AMI source"). */
  why: string;
}

/**
 * The same gate asked afresh at its next revision (a retry after its answer failed the same way): the old card's
 * buttons go stale and the next ask-gate posts a new card. Bookkeeping, like save-state: a dry run asked nothing.
 */
export interface ReopenGateCommand {
  kind: 'reopen-gate';
  gateId: string;
}

/** Blocking findings: the job stops here (at a Force card when all may be forced, else it fails). */
export interface StopAtFindingsCommand {
  kind: 'stop-at-findings';
  findings: string[];
}

/** A patch of the step's state in job.data (a dry run saves nothing: a later hop must not read it as done). */
export interface SaveStateCommand {
  kind: 'save-state';
  patch: Record<string, unknown>;
}

/** What the step did to one resource, for the summary and audit (a dry run did nothing, so records nothing). */
export interface RecordActedCommand {
  kind: 'record-acted';
  acted: ActedAction;
}

/** Between two items of a step: Pause parks here, Abort ends here (a dry run runs straight through). */
export interface SafePointCommand {
  kind: 'safe-point';
  before: string;
}

/** The commands that start an EKS update (recorded under `record`, followed with DescribeUpdate). */
export type UpdateCommand = UpdateClusterVersionCommand | UpdateAddonCommand | UpdateNodegroupVersionCommand;
