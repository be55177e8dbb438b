import type { Update } from '@aws-sdk/client-eks';
import { decideControlPlaneAction, type ControlPlaneAction } from '../../../src/planning/deciders/decide-control-plane-action.js';
import { StepFailure, type Step, type StepContext, type StepResult } from '../../engine/step-context.js';
import { remedyForUpdate } from '../../../src/planning/update-error-remedies.js';
import { formatDuration } from '../../../src/report/format-text.js';
import { followUpdate } from '../../engine/follow-update.js';
import { ROLLBACK_WINDOW_MS } from '../../../src/planning/rollback-preflight.js';
import { describeUpdateErrors, readRecentUpdates } from '../../engine/read-cluster-updates.js';
import { mention } from '../../../src/report/format-text.js';
import { requestToken } from '../../engine/request-token.js';
import type { UpdateClusterVersionCommand } from '../../engine/commands.js';
import { execute, readsEarlierHopsAsDone } from '../../engine/execute-commands.js';

/**
 * Control plane N → N+1. Reads the world first (DescribeCluster, the update this job recorded, the cluster's recent
 * updates) and decides: already done, adopt the update in progress, or issue UpdateClusterVersion. The executor
 * (jobs/engine/execute-commands.ts) carries the decision out — the update's id is stored in job.data before it is followed,
 * so a worker that dies anywhere in here never issues a second one — or, in a dry run, describes it.
 */
const RECORD = 'cluster';

async function decide(ctx: StepContext): Promise<ControlPlaneAction> {
  const { data, step, eks } = ctx;
  const cluster = await eks.describeCluster(data.cluster);
  const recordedId = ctx.recordedUpdate(RECORD)?.updateId;
  const recorded = recordedId ? await eks.describeUpdate(data.cluster, recordedId) : undefined;
  // A dry run of a later hop reads the cluster as if the earlier hops had been done.
  const assumed = readsEarlierHopsAsDone(ctx);
  const updates = assumed ? [] : await readRecentUpdates(eks, data.cluster);
  return decideControlPlaneAction({
    clusterName: data.cluster,
    clusterVersion: assumed ? step.from : (cluster.version ?? ''),
    hopFrom: step.from,
    target: step.to,
    updates,
    recorded,
    rollback: !!data.rollback,
  });
}

function failedUpdate(ctx: StepContext, update: Update): StepFailure {
  return new StepFailure(
    `${ctx.data.rollback ? 'Rolling back' : 'Upgrading'} the control plane of ${ctx.data.cluster} to ${ctx.step.to} failed (update ${update.id} ended ${update.status}): ${describeUpdateErrors(update)}`,
    { remedy: remedyForUpdate(update), code: update.errors?.[0]?.errorCode },
  );
}

/**
 * The UpdateClusterVersion this hop would issue. The token is deterministic: if AWS received a first call whose
 * answer was lost, it returns that update. A rollback is forced at its gate (the readiness insights are read there,
 * after the node steps).
 */
function updateCommand(ctx: StepContext): UpdateClusterVersionCommand {
  const { data, step } = ctx;
  const preflightForced = !!data.stepState[`h${step.hop}-preflight`]?.forced;
  const gateForced = !!data.rollback && !!data.stepState[`h${step.hop}-gate-control-plane`]?.forced;
  return {
    kind: 'update-cluster-version',
    cluster: data.cluster,
    to: step.to,
    token: requestToken(data.jobId, step.id),
    force: preflightForced || gateForced,
    rollback: data.rollback ? { timeoutMinutes: data.rollback.timeoutMinutes } : undefined,
    record: RECORD,
    event: 'issued',
    notes: [
      ...(preflightForced ? [' with force (the preflight was forced)'] : []),
      ...(gateForced ? [' with force (an approver forced past the rollback-readiness insights)'] : []),
    ],
    after: data.rollback
      ? 'On an Auto Mode cluster EKS rolls the nodes back first, and Abort then cancels it (CancelUpdate); once the control plane moves, AWS cannot stop it.'
      : 'AWS cannot pause or stop it once started.',
  };
}

export const controlPlaneStep: Step = async (ctx): Promise<StepResult> => {
  const { data, step } = ctx;
  const startedAt = ctx.clock.now();
  for (;;) {
    const decision = await decide(ctx);
    switch (decision.action) {
      case 'done': {
        // Done by an update this job issued (recorded) or already there before the step ran.
        const ours = ctx.recordedUpdate(RECORD);
        await execute(ctx, { kind: 'record-acted', acted: { resource: `cluster/${data.cluster}`, action: 'update-control-plane', to: step.to, outcome: ours ? 'done' : 'already', note: decision.reason } });
        return { outcome: 'done', summary: `${decision.reason}; nothing to do` };
      }
      case 'failed':
        throw failedUpdate(ctx, decision.update);
      case 'blocked':
        throw new StepFailure(`Cannot ${data.rollback ? 'roll back' : 'upgrade'} the control plane of ${data.cluster} to ${step.to}: ${decision.reason}`, { remedy: decision.remedy });
      case 'wait':
        await ctx.setProgress(`waiting: ${decision.reason}`);
        await ctx.sleep(ctx.pollIntervalMs);
        continue;
      case 'issue': {
        const started = await execute(ctx, updateCommand(ctx));
        if (started.kind === 'described') return { outcome: 'dry-run', summary: started.text };
        if (started.kind === 'retry') continue;
        return follow(ctx, started.updateId, startedAt);
      }
      case 'adopt': {
        const adopted = await execute(ctx, {
          kind: 'adopt-update', updateId: decision.updateId, operation: 'UpdateClusterVersion', target: step.to, record: RECORD, ours: decision.ours,
          note: { event: 'adopted', text: `Adopted: ${decision.reason}.` },
        });
        if (adopted.kind === 'described') return { outcome: 'dry-run', summary: adopted.text };
        return follow(ctx, adopted.updateId, startedAt);
      }
    }
  }
};

/**
 * An Auto Mode cluster's rollback first has EKS roll its nodes back (the update InProgress, the cluster ACTIVE);
 * an Abort then calls CancelUpdate — once: the request is saved before the call and carries a token — and the
 * nodes go back to N. Once the control plane itself moves (cluster UPDATING) nothing can stop it.
 */
async function cancelAutoModeRollback(ctx: StepContext, update: Update): Promise<void> {
  const { data } = ctx;
  if (!data.rollback || !update.id) return;
  const controls = await ctx.controls();
  if (!controls.abort || ctx.stepState().cancel) return;
  const cluster = await ctx.eks.describeCluster(data.cluster);
  if (!cluster.computeConfig?.enabled || cluster.status !== 'ACTIVE') return;
  // The request is saved before the call, and the call carries a token: an Abort cancels once.
  await execute(ctx, { kind: 'save-state', patch: { cancel: { by: controls.abort.by, updateId: update.id } } });
  await execute(ctx, { kind: 'cancel-rollback', cluster: data.cluster, updateId: update.id, token: requestToken(data.jobId, 'cancel'), by: controls.abort.by, from: ctx.step.from });
}

async function follow(ctx: StepContext, updateId: string, startedAt: number): Promise<StepResult> {
  const { data, step } = ctx;
  const final = await followUpdate(ctx, {
    cluster: data.cluster,
    updateId,
    label: `control-plane ${data.rollback ? 'rollback' : 'update'} to ${step.to}`,
    onPoll: (update) => cancelAutoModeRollback(ctx, update),
    abortNote: () => (data.rollback && ctx.stepState().cancel ? '' : undefined),
  });
  const cancelled = ctx.stepState<{ cancel?: { by: string } }>().cancel;
  if (final.status === 'Cancelled' && cancelled) {
    return { outcome: 'abort', by: cancelled.by, reason: `${mention(cancelled.by)} aborted the rollback; EKS cancelled update ${updateId} and ${data.cluster} stays at ${step.from}` };
  }
  if (final.status !== 'Successful') throw failedUpdate(ctx, final);
  const cluster = await ctx.eks.describeCluster(data.cluster);
  if (cluster.version !== step.to) {
    throw new StepFailure(
      `Update ${updateId} of ${data.cluster} reported Successful, but DescribeCluster shows ${cluster.version}, not ${step.to}`,
      { remedy: 'check the cluster with `aws eks describe-cluster`; AWS may have reverted the update after failed health checks' },
    );
  }
  await ctx.setProgress(undefined);
  ctx.recordActed({ resource: `cluster/${data.cluster}`, action: 'update-control-plane', to: step.to, outcome: 'done' });
  // EKS allows a rollback for 7 days from the in-place upgrade (as DescribeUpdate dates it): the summary card's
  // "Roll back" button says until when. A rollback itself opens no such window.
  if (!data.rollback && final.createdAt) await ctx.saveStepState({ rollbackUntil: final.createdAt.getTime() + ROLLBACK_WINDOW_MS });
  return {
    outcome: 'done',
    summary: `control plane of ${data.cluster} ${data.rollback ? 'back ' : ''}at ${step.to} (update ${updateId}, followed for ${formatDuration(ctx.clock.now() - startedAt)})`,
  };
}
