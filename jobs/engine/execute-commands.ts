import { RESTARTED_AT } from '../../src/planning/deciders/fargate-workloads.js';
import { termsMatch } from '../../src/planning/deciders/decide-ami-action.js';
import { describeBudgets, sameBudgets } from '../../src/planning/workloads/disruption-budget.js';
import { mention } from '../../src/report/format-text.js';
import type { GateAction } from '../../src/ports/timeline-event.js';
import type { AskGateCommand, Command, UpdateCommand } from './commands.js';
import { describeCommand, describeCommands, describeIssued } from './describe-command.js';
import { applyRemedy, forceDrain, type ForcedDrain } from './drain-inspection.js';
import { awaitGate, reopenGate } from './gate-step.js';
import { safePoint } from './safe-point.js';
import { StepFailure, type StepContext, type StepResult } from './step-context.js';
import { adoptUpdateInFlight, isResourceInUse } from './update-in-flight.js';

/**
 * The one executor of the upgrade engine: steps read and decide (jobs/engine/commands.ts has what they can ask
 * for); this carries the commands out — the idempotency tokens they carry, the record of an update in job.data
 * before it is followed, adopting an update already under way (ResourceInUseException), the timeline events — and
 * in a dry run describes them instead (`{ kind: 'described' }`), so no step asks whether the job is a dry run.
 */
export type Described = { kind: 'described'; text: string };
/** An update to follow; `retry` when EKS said one runs but none shows yet (the executor waited a poll interval). */
export type UpdateStarted = { kind: 'update'; updateId: string } | { kind: 'retry' };
type Done = { kind: 'done' };
/** The gate's answer (with a skip gate's `skipped` note); `stop` when the job parks at it or ends there (Abort, a timeout). */
export type GateAsked =
  | { kind: 'answered'; action: GateAction; by: string; at: number; reason?: string; skipped?: string }
  | { kind: 'stop'; result: StepResult };

interface Results {
  'update-cluster-version': UpdateStarted;
  'update-addon': UpdateStarted;
  'update-nodegroup-version': UpdateStarted;
  'roll-launch-template': Done;
  'replace-nodegroup': Done;
  'create-nodegroup': Done;
  'delete-nodegroup': Done;
  'cancel-rollback': Done | { kind: 'refused' };
  'terminate-instance': Done;
  'start-instance-refresh': { kind: 'refresh'; refreshId: string } | { kind: 'retry' };
  'create-launch-template-version': { kind: 'version'; version: number };
  'point-group': Done;
  'scale-for-drain': Done;
  'put-drain-hook': Done;
  'complete-drain-hook': Done;
  'remove-drain-hook': Done;
  'cancel-instance-refresh': Done;
  'force-drain': { kind: 'forced'; forced: ForcedDrain };
  'cordon-node': Done;
  'roll-self-managed': Done;
  'drive-karpenter': Done;
  'hold-budgets': Done;
  'set-nodepool-budgets': { kind: 'set'; from: string } | { kind: 'unchanged' } | { kind: 'gone' };
  'point-node-class': Done | { kind: 'gone' };
  'adopt-update': { kind: 'update'; updateId: string };
  'restart-workload': Done;
  'restart-workloads': Done;
  'verify-hop': Done;
  'ask-gate': GateAsked;
  'reopen-gate': Done;
  'stop-at-findings': Done;
  'save-state': Done;
  'record-acted': Done;
  'safe-point': Done | { kind: 'stop'; result: StepResult };
}

export type Executed<C extends Command> = Results[C['kind']] | Described;

export async function execute<C extends Command>(ctx: StepContext, command: C): Promise<Executed<C>> {
  return (await run(ctx, command)) as Executed<C>;
}

async function run(ctx: StepContext, command: Command): Promise<Executed<Command>> {
  const dryRun = ctx.data.dryRun;
  switch (command.kind) {
    // Bookkeeping and safe points: a dry run acted on nothing, so it records nothing and never parks.
    case 'save-state':
      if (!dryRun) await ctx.saveStepState(command.patch);
      return { kind: 'done' };
    case 'record-acted':
      if (!dryRun) ctx.recordActed(command.acted);
      return { kind: 'done' };
    case 'safe-point': {
      const stop = dryRun ? undefined : await safePoint(ctx, command.before);
      return stop ? { kind: 'stop', result: stop } : { kind: 'done' };
    }
    case 'reopen-gate':
      if (!dryRun) await reopenGate(ctx, command.gateId);
      return { kind: 'done' };
    default:
      if (dryRun) return { kind: 'described', text: describeCommand(command) };
  }
  switch (command.kind) {
    case 'update-cluster-version':
    case 'update-addon':
    case 'update-nodegroup-version':
      return issueUpdate(ctx, command);
    case 'adopt-update':
      if (!command.ours) {
        await ctx.recordUpdate(command.record, { updateId: command.updateId, operation: command.operation, target: command.target, at: ctx.clock.now(), adopted: true });
        if (command.note) await ctx.emit(command.note.event, { kind: 'note', at: ctx.clock.now(), level: 'info', text: command.note.text });
      }
      return { kind: 'update', updateId: command.updateId };
    case 'create-nodegroup': {
      const green = command.request.nodegroupName ?? '';
      try {
        await ctx.eks.createNodegroup(command.request);
      } catch (error) {
        // The clone exists already (our own call whose answer was lost): the step's next read finds it and waits on it.
        if (!isResourceInUse(error)) throw error;
      }
      await ctx.recordUpdate(command.record, { updateId: green, operation: 'CreateNodegroup', target: `${green} ${ctx.step.to}`, at: ctx.clock.now(), adopted: false });
      await ctx.emit(command.event, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: `CreateNodegroup ${green}: a ${ctx.step.to} clone of ${command.blue} (same labels, taints, subnets, instance types and sizes).` });
      return { kind: 'done' };
    }
    case 'delete-nodegroup': {
      try {
        await ctx.eks.deleteNodegroup(command.cluster, command.nodegroup);
      } catch (error) {
        const now = isResourceInUse(error) ? await describeNodegroupOrUndefined(ctx, command.cluster, command.nodegroup) : undefined;
        if (!isResourceInUse(error) || (now && now.status !== 'DELETING')) throw error;
      }
      await ctx.recordUpdate(command.record, { updateId: command.nodegroup, operation: 'DeleteNodegroup', target: command.nodegroup, at: ctx.clock.now(), adopted: false });
      if (command.save) await ctx.saveStepState(command.save);
      await ctx.emit(command.event, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: `DeleteNodegroup ${command.nodegroup}: EKS cordons and drains its nodes.` });
      return { kind: 'done' };
    }
    case 'create-launch-template-version': {
      const version = await ctx.ec2.createLaunchTemplateVersion(command.launchTemplateId, { sourceVersion: command.sourceVersion, imageId: command.imageId, description: command.description });
      await ctx.emit(command.event.replace('{version}', String(version)), {
        kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
        text: `${command.group}: launch template ${command.template} version ${version} created from version ${command.sourceVersion} with ${command.imageId} (${command.source}).`,
      });
      return { kind: 'version', version };
    }
    case 'point-group': {
      const setDefault = async () => {
        if (command.defaultVersion !== undefined) await ctx.ec2.setDefaultLaunchTemplateVersion(command.launchTemplateId, command.defaultVersion);
      };
      if (!command.restore) await setDefault();
      await ctx.autoScaling.setLaunchTemplate(command.group, { id: command.launchTemplateId, version: command.version });
      if (command.restore) await setDefault();
      await ctx.saveStepState(command.save);
      const at = ctx.clock.now();
      await ctx.emit(command.event, command.restore ? { kind: 'note', at, level: 'info', text: command.text } : { kind: 'progress', at, step: ctx.step.id, text: command.text });
      return { kind: 'done' };
    }
    case 'put-drain-hook':
      await ctx.autoScaling.putTerminationHook(command.group, command.hook, command.heartbeatSeconds);
      return { kind: 'done' };
    case 'complete-drain-hook':
      await ctx.autoScaling.completeLifecycleAction(command.group, command.hook, command.instanceId).catch(unlessValidationError);
      return { kind: 'done' };
    case 'remove-drain-hook':
      await ctx.autoScaling.deleteLifecycleHook(command.group, command.hook).catch(unlessValidationError);
      return { kind: 'done' };
    case 'cancel-instance-refresh':
      // Best effort, as the Abort goes on either way: a refresh that has ended has nothing to cancel.
      await ctx.autoScaling.cancelInstanceRefresh(command.group).catch(() => undefined);
      return { kind: 'done' };
    case 'scale-for-drain':
      await applyRemedy(ctx, command.remedy);
      return { kind: 'done' };
    case 'cordon-node': {
      const kube = await ctx.kube();
      const found = await kube.get('nodes', command.node);
      if (found && !found.spec?.unschedulable) await kube.patch('nodes', command.node, { spec: { unschedulable: true } }, { type: 'merge' });
      return { kind: 'done' };
    }
    case 'force-drain':
      return { kind: 'forced', forced: await forceDrain(ctx, command.nodes, { by: command.by, reason: command.reason }) };
    case 'start-instance-refresh': {
      let refreshId: string;
      try {
        refreshId = await ctx.autoScaling.startInstanceRefresh(command.group, { minHealthyPercentage: command.minHealthyPercentage, skipMatching: true });
      } catch (error) {
        // A refresh runs already: our own call whose answer was lost (the SDK retried it). The SDK names the wire code
        // InstanceRefreshInProgress InstanceRefreshInProgressFault. It is adopted; when none shows yet, wait a poll.
        if ((error as { name?: string }).name !== 'InstanceRefreshInProgressFault') throw error;
        const running = (await ctx.autoScaling.describeInstanceRefreshes(command.group)).find((refresh) => ACTIVE_REFRESH.includes(refresh.status));
        if (running) return { kind: 'refresh', refreshId: running.id };
        await ctx.sleep(ctx.pollIntervalMs);
        return { kind: 'retry' };
      }
      await ctx.emit(`smg:${command.group}:refresh:${refreshId}`, {
        kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
        text: `${command.group}: instance refresh ${refreshId} started (MinHealthyPercentage ${command.minHealthyPercentage}); the bot drains each instance it takes out of service.`,
      });
      return { kind: 'refresh', refreshId };
    }
    case 'terminate-instance':
      try {
        await ctx.autoScaling.terminateInstance(command.instanceId);
      } catch (error) {
        // Already on its way out (our own call whose answer was lost, or a re-run after a crash right after it): the
        // termination is adopted. The SDK names the wire code ScalingActivityInProgress ScalingActivityInProgressFault
        // (@aws-sdk/client-auto-scaling models/errors); an instance already gone answers ValidationError "not found".
        const name = (error as { name?: string }).name;
        if (name !== 'ScalingActivityInProgressFault' && !(name === 'ValidationError' && /not found/i.test((error as Error).message))) throw error;
      }
      await ctx.emit(`smg:${command.group}:terminated:${command.instanceId}`, {
        kind: 'progress', at: ctx.clock.now(), step: ctx.step.id,
        text: `${command.group}: ${command.node} drained (${command.evicted} pod(s) evicted) and instance ${command.instanceId} terminated; the group launches its replacement (desired capacity unchanged).`,
      });
      return { kind: 'done' };
    case 'cancel-rollback':
      try {
        await ctx.eks.cancelUpdate(command.cluster, command.updateId, command.token);
      } catch (error) {
        await ctx.emit(`cancel:${command.updateId}:refused`, {
          kind: 'note', at: ctx.clock.now(), level: 'warning',
          text: `Abort by ${mention(command.by)}: EKS did not cancel the rollback ${command.updateId} (${(error as Error).message}); the job waits for it to end, then stops.`,
        });
        return { kind: 'refused' };
      }
      await ctx.emit(`cancel:${command.updateId}`, {
        kind: 'note', at: ctx.clock.now(), level: 'warning',
        text: `Abort by ${mention(command.by)}: CancelUpdate issued for the rollback ${command.updateId} while EKS was still rolling the Auto Mode nodes back; they return to ${command.from} and the control plane stays at ${command.from}.`,
      });
      return { kind: 'done' };
    case 'set-nodepool-budgets': {
      const kube = await ctx.kube();
      const current = await kube.get('nodepools', command.pool);
      if (!current) return { kind: 'gone' };
      if (sameBudgets(current.spec?.disruption?.budgets, command.budgets)) return { kind: 'unchanged' };
      await kube.patch('nodepools', command.pool, { spec: { disruption: { budgets: command.budgets } } }, { type: 'merge' });
      return { kind: 'set', from: describeBudgets(current.spec?.disruption?.budgets) };
    }
    case 'point-node-class': {
      const kube = await ctx.kube();
      const current = await kube.get('ec2nodeclasses', command.nodeClass);
      if (!current && command.whenGone === 'report') return { kind: 'gone' };
      if (!current) {
        throw new StepFailure(`Pointing EC2NodeClass ${command.nodeClass} at the ${ctx.step.to} AMI failed: it no longer exists`, {
          remedy: "recreate it (or fix the NodePools' nodeClassRef), then start the upgrade again",
        });
      }
      if (!termsMatch(current.spec?.amiSelectorTerms, command.terms)) {
        await kube.patch('ec2nodeclasses', command.nodeClass, { spec: { amiSelectorTerms: command.terms } }, { type: 'merge' });
      }
      return { kind: 'done' };
    }
    case 'restart-workload': {
      // Written only when the pod template does not carry this restart's annotation yet: a re-run writes nothing.
      const kube = await ctx.kube();
      const current = await kube.get(command.resource, command.name, command.namespace);
      if (current && current.spec?.template?.metadata?.annotations?.[RESTARTED_AT] !== command.restartedAt) {
        await kube.patch(command.resource, command.name, { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: command.restartedAt } } } } }, { namespace: command.namespace, type: 'strategic' });
      }
      return { kind: 'done' };
    }
    case 'ask-gate':
      return askGate(ctx, command);
    case 'restart-workloads':
    case 'verify-hop':
    case 'roll-launch-template':
    case 'replace-nodegroup':
    case 'roll-self-managed':
    case 'drive-karpenter':
    case 'hold-budgets':
    case 'stop-at-findings':
      // Plans a step carries out itself, command by command; only a dry run has something to say about them.
      return { kind: 'done' };
  }
  throw new Error(`no executor for ${(command as Command).kind}`);
}

/**
 * Commands a step would start with: in a dry run the step ends here with their description; otherwise undefined
 * and the step goes on to carry them out.
 */
export function preview(ctx: StepContext, commands: readonly Command[]): StepResult | undefined {
  return ctx.data.dryRun ? { outcome: 'dry-run', summary: describeCommands(commands) } : undefined;
}

/** One item's command as a dry run describes it (its line in the step's summary); undefined when the job acts. */
export function describeInstead(ctx: StepContext, command: Command): string | undefined {
  return ctx.data.dryRun ? describeCommand(command) : undefined;
}

/**
 * Where a step ends when a command did not let it go on: parked or stopped at a gate (Abort, a timeout), or — a dry
 * run — at the command's description.
 */
export function halted(result: Described | { kind: 'stop'; result: StepResult }): StepResult {
  return result.kind === 'stop' ? result.result : { outcome: 'dry-run', summary: result.text };
}

/** The end of a step that went through its commands: 'dry-run' when they were only described. */
export function completed(ctx: StepContext, summary: string): StepResult {
  return { outcome: ctx.data.dryRun ? 'dry-run' : 'done', summary };
}

/**
 * A dry run of a later hop reads the world as if the earlier hops had been done: the executor described their
 * commands, it did not carry them out, so the cluster still stands where the first hop found it.
 */
export function readsEarlierHopsAsDone(ctx: StepContext): boolean {
  return ctx.data.dryRun && ctx.step.hop > 1;
}

/** Whether this job changes anything (a dry run only describes): for reads and notes only a real run needs. */
export function acts(ctx: StepContext): boolean {
  return !ctx.data.dryRun;
}

/** The states of an instance refresh still under way (DescribeInstanceRefreshes). */
export const ACTIVE_REFRESH = ['Pending', 'InProgress', 'Cancelling'];

/** A ValidationError from a lifecycle-hook call means it is done already (DrainHookCommand); anything else stands. */
function unlessValidationError(error: Error): void {
  if (error.name !== 'ValidationError') throw error;
}

const isNotFound = (error: unknown) => ['ResourceNotFoundException', 'NotFoundException'].includes((error as Error)?.name);

async function describeNodegroupOrUndefined(ctx: StepContext, cluster: string, nodegroup: string) {
  try {
    return await ctx.eks.describeNodegroup(cluster, nodegroup);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Asks the gate (awaitGate: posted once per revision, the job parked until the answer, the answer on the timeline).
 * A skip gate's answer is recorded before the step hears it, so a re-run after a crash reads the resource as
 * skipped rather than asking again.
 */
async function askGate(ctx: StepContext, command: AskGateCommand): Promise<GateAsked> {
  const outcome = await awaitGate(ctx, command.gate);
  if (outcome.kind === 'result') return { kind: 'stop', result: outcome.result };
  const { skip } = command;
  const answered = { kind: 'answered' as const, action: outcome.action, by: outcome.by, at: outcome.at, reason: outcome.reason };
  if (!skip) return answered;
  const note = `${skip.why}, skipped by ${mention(outcome.by)}${outcome.reason ? `: ${outcome.reason}` : ''}`;
  ctx.recordActed({ resource: skip.resource, action: skip.action, to: ctx.step.to, outcome: 'skipped', note });
  await ctx.saveStepState({ [skip.stateKey]: { ...skip.state, final: 'skipped', note } });
  return { ...answered, skipped: note };
}

/** What each update command calls, and how its update is named in job.data and found again when EKS says one runs. */
function updateCall(ctx: StepContext, command: UpdateCommand) {
  switch (command.kind) {
    case 'update-cluster-version':
      return {
        operation: 'UpdateClusterVersion', target: command.to, type: 'VersionUpdate' as const, scope: undefined,
        call: () => ctx.eks.updateClusterVersion(command.cluster, command.to, command.token, command.force || undefined, command.rollback),
        missingId: () => new StepFailure(`UpdateClusterVersion ${command.cluster} → ${command.to} returned no update id`),
      };
    case 'update-addon':
      return {
        operation: 'UpdateAddon', target: `${command.addon} ${command.to}`, type: 'AddonUpdate' as const, scope: { addonName: command.addon },
        call: () => ctx.eks.updateAddon(command.cluster, command.addon, { addonVersion: command.to, resolveConflicts: command.resolveConflicts, clientRequestToken: command.token }),
        // (as before commands: an add-on update without an id is retried, the others fail the step)
        missingId: () => new Error(`UpdateAddon ${command.addon} → ${command.to} returned no update id`),
      };
    case 'update-nodegroup-version':
      return {
        operation: 'UpdateNodegroupVersion', target: `${command.nodegroup} ${command.to}`, type: 'VersionUpdate' as const, scope: { nodegroupName: command.nodegroup },
        call: () => ctx.eks.updateNodegroupVersion(command.cluster, command.nodegroup, { ...command.request, force: command.force, clientRequestToken: command.token }),
        missingId: () => new StepFailure(`UpdateNodegroupVersion ${command.nodegroup} returned no update id`),
      };
  }
}

async function issueUpdate(ctx: StepContext, command: UpdateCommand): Promise<UpdateStarted> {
  const { operation, target, type, scope, call, missingId } = updateCall(ctx, command);
  let updateId: string | undefined;
  try {
    const update = await call();
    if (!update.id) throw missingId();
    await ctx.recordUpdate(command.record, { updateId: update.id, operation, target, at: ctx.clock.now(), adopted: false });
    updateId = update.id;
  } catch (error) {
    // An update of this resource started between the step's read and this call — most often this job's own first
    // call, whose answer was lost: follow it as ours, or wait one poll interval and let the step read again.
    if (!isResourceInUse(error)) throw error;
    updateId = await adoptUpdateInFlight(ctx, scope, type, { key: command.record, operation, target });
    if (!updateId) return { kind: 'retry' };
  }
  // Issued by this job either way (an adopted one is most often its own first call): the timeline says so once.
  await ctx.emit(command.event, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: describeIssued(command, updateId) });
  return { kind: 'update', updateId };
}
