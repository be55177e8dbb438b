import { RESTARTED_AT } from '../src/planning/fargate-workloads.js';
import { describeCommand, describeCommands, describeIssued, type Command, type UpdateAddonCommand, type UpdateClusterVersionCommand } from './engine/commands.js';
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

interface Results {
  'update-cluster-version': UpdateStarted;
  'update-addon': UpdateStarted;
  'adopt-update': { kind: 'update'; updateId: string };
  'restart-workload': Done;
  'restart-workloads': Done;
  'verify-hop': Done;
  'ask-gate': Done;
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
    default:
      if (dryRun) return { kind: 'described', text: describeCommand(command) };
  }
  switch (command.kind) {
    case 'update-cluster-version':
    case 'update-addon':
      return issueUpdate(ctx, command);
    case 'adopt-update':
      if (!command.ours) {
        await ctx.recordUpdate(command.record, { updateId: command.updateId, operation: command.operation, target: command.target, at: ctx.clock.now(), adopted: true });
        if (command.note) await ctx.emit(command.note.event, { kind: 'note', at: ctx.clock.now(), level: 'info', text: command.note.text });
      }
      return { kind: 'update', updateId: command.updateId };
    case 'restart-workload': {
      // Written only when the pod template does not carry this restart's annotation yet: a re-run writes nothing.
      const kube = await ctx.kube();
      const current = await kube.get(command.resource, command.name, command.namespace);
      if (current && current.spec?.template?.metadata?.annotations?.[RESTARTED_AT] !== command.restartedAt) {
        await kube.patch(command.resource, command.name, { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: command.restartedAt } } } } }, { namespace: command.namespace, type: 'strategic' });
      }
      return { kind: 'done' };
    }
    case 'restart-workloads':
    case 'verify-hop':
    case 'stop-at-findings':
    // A gate is carried out by awaitGate (jobs/gate-step.ts, which the steps call after `preview`): the executor
    // cannot import it, as gate-step's own step previews through here.
    case 'ask-gate':
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

async function issueUpdate(ctx: StepContext, command: UpdateClusterVersionCommand | UpdateAddonCommand): Promise<UpdateStarted> {
  const operation = command.kind === 'update-addon' ? 'UpdateAddon' : 'UpdateClusterVersion';
  const target = command.kind === 'update-addon' ? `${command.addon} ${command.to}` : command.to;
  let updateId: string | undefined;
  try {
    const update =
      command.kind === 'update-addon'
        ? await ctx.eks.updateAddon(command.cluster, command.addon, { addonVersion: command.to, resolveConflicts: command.resolveConflicts, clientRequestToken: command.token })
        : await ctx.eks.updateClusterVersion(command.cluster, command.to, command.token, command.force || undefined, command.rollback);
    // (as before commands: a cluster update without an id fails the step, an add-on's is retried)
    if (!update.id && command.kind === 'update-addon') throw new Error(`UpdateAddon ${command.addon} → ${command.to} returned no update id`);
    if (!update.id) throw new StepFailure(`UpdateClusterVersion ${command.cluster} → ${command.to} returned no update id`);
    await ctx.recordUpdate(command.record, { updateId: update.id, operation, target, at: ctx.clock.now(), adopted: false });
    updateId = update.id;
  } catch (error) {
    // An update of this resource started between the step's read and this call — most often this job's own first
    // call, whose answer was lost: follow it as ours, or wait one poll interval and let the step read again.
    if (!isResourceInUse(error)) throw error;
    const scope = command.kind === 'update-addon' ? { addonName: command.addon } : undefined;
    updateId = await adoptUpdateInFlight(ctx, scope, command.kind === 'update-addon' ? 'AddonUpdate' : 'VersionUpdate', { key: command.record, operation, target });
    if (!updateId) return { kind: 'retry' };
  }
  // Issued by this job either way (an adopted one is most often its own first call): the timeline says so once.
  await ctx.emit(command.event, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: describeIssued(command, updateId) });
  return { kind: 'update', updateId };
}
