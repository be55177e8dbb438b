import type { JobControls } from '../../src/ports/job-controls.js';
import type { PlannedStep } from '../../src/ports/upgrade-plan.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { formatUtcTime, mention } from '../../src/report/format-text.js';
import { guardHalts } from '../../src/planning/guards/evaluate-guard.js';
import { execute } from '../engine/execute-commands.js';
import type { StepContext } from '../engine/step-context.js';
import { autoResumeDue, breachCard, type BreachCard, haltingGuards, holdGateId, nextGuardDueInMs, watchGuards } from './guard-watch.js';
import type { JobRuntime } from './job-runtime.js';
import { controlHookFor } from './step-registry.js';

/**
 * The processor's side of a guard's hold (issue 29): at the safe point, with the hold open, the current step's
 * control hook runs as for a pause (Karpenter budgets to nodes "0"), and the breach card — a gate of the current
 * step, `guard-<seq>` — asks the approvers. The answers:
 * - Resume (the gate's Continue, `gate:continue`, under another label): the guards are read again; the job resumes
 *   when none halts, else the refusal is said and the card asked again (a new revision).
 * - Force (a reason): the job resumes, and the guards that halt are ignored until they have recovered once.
 * - Abort: the job ends here, as an Abort at any gate does.
 * - Roll back (src/slack/actions/breach-rollback-action.ts): an Abort of this card once the rollback's checks have
 *   passed, then the rollback starts; the job itself sees an Abort.
 * - autoResume: when every held guard has it and has held healthy for its `for`, the bot answers Continue itself.
 * While the hold lasts the card is edited in place (the same gate revision) when every guard that stopped the job has
 * recovered.
 * While it waits the job is parked, woken by an answer, and comes back at each guard interval to evaluate again.
 */
export type HoldOutcome = { kind: 'resumed' } | { kind: 'park'; delayMs: number; wakeEarly?: () => Promise<boolean> } | { kind: 'abort'; reason: string };

export const AUTO_RESUME_BY = 'autoResume';
/** A held job without autoResume reads its guards again every this many intervals, to say when one recovers. */
export const HOLD_RECHECK_INTERVALS = 5;

export async function runGuardHold(runtime: JobRuntime, step: PlannedStep, controls: JobControls, signal: AbortSignal): Promise<HoldOutcome> {
  const { data, deps } = runtime;
  const state = data.guards!;
  const hold = state.hold!;
  const ctx = runtime.contextFor(step, signal);
  const asPaused: JobControls = { ...controls, paused: true, pausedBy: `guard ${hold.guards.map((name) => `"${name}"`).join(', ')}`, pausedAt: hold.since };
  await controlHookFor(step.kind)?.(ctx, asPaused);

  const gateId = holdGateId(hold.seq);
  const saved = ctx.stepState()[`gate:${gateId}`] as { revision?: number } | undefined;
  // The card is built once per revision (it would be posted once per key anyway): its sparkline is a query.
  const kept = saved?.revision !== undefined ? (ctx.stepState()[`gate:${gateId}:card`] as KeptCard | undefined) : undefined;
  const card = await currentCard(runtime, ctx, gateId, saved?.revision ?? 1, kept);

  const due = autoResumeDue(runtime);
  if (due) {
    const revision = saved?.revision ?? 1;
    await deps.gates.answer(data.jobId, gateId, revision, { action: 'continue', by: `${AUTO_RESUME_BY} of guard ${due.map((guard) => `"${guard.name}"`).join(', ')}`, at: deps.clock.now() });
  }

  // The card is asked through the executor, as every gate is; a dry run reads no guard, so it never holds.
  const outcome = await execute(ctx, {
    kind: 'ask-gate',
    gate: {
      gateId, title: card.title, details: card.details, actions: ['continue', 'force', 'abort'], guardHold: true, continueLabel: 'Resume',
      ...(card.rollback ? { rollback: card.rollback } : {}),
    },
  });
  if (outcome.kind === 'described') throw new Error(`guard hold ${gateId} reached in a dry run, which reads no guard`);
  if (outcome.kind === 'stop') {
    const result = outcome.result;
    if (result.outcome === 'abort') return { kind: 'abort', reason: result.reason };
    const delay = result.outcome === 'wait' ? result.delayMs : 1_000;
    // Back at the guards' interval while autoResume may answer the card; otherwise every HOLD_RECHECK_INTERVALS
    // intervals, to say in the thread when a guard recovers (each wake-up is one of BullMQ's bounded restarts).
    const held = (runtime.clusterConfig.guards ?? []).filter((guard) => hold.guards.includes(guard.name));
    const autoResume = held.some((guard) => guard.autoResume);
    const due = nextGuardDueInMs(runtime);
    const slowest = HOLD_RECHECK_INTERVALS * Math.min(...held.map((guard) => guard.intervalMs), 60_000);
    const recheck = due === undefined ? delay : autoResume ? due : Math.max(due, slowest);
    return { kind: 'park', delayMs: Math.min(delay, recheck), ...(result.outcome === 'wait' && result.wakeEarly ? { wakeEarly: result.wakeEarly } : {}) };
  }
  if (outcome.action === 'force') {
    await watchGuards(runtime, { all: true });
    for (const guard of haltingGuards(runtime)) state.overridden[guard.name] = { by: outcome.by, ...(outcome.reason ? { reason: outcome.reason } : {}), at: outcome.at };
    state.hold = undefined;
    await runtime.save();
    await ctx.emitKeyed(`${data.jobId}:${gateId}:forced`, `${data.jobId}:${gateId}:forced`, {
      kind: 'note', at: deps.clock.now(), level: 'warning',
      text: `Forced on by ${mention(outcome.by)} past guard ${hold.guards.map((name) => `"${name}"`).join(', ')}${outcome.reason ? `: ${outcome.reason}` : ''}. Those guards stop the upgrade again only after they have recovered once.`,
    });
    return { kind: 'resumed' };
  }
  await watchGuards(runtime, { all: true });
  const halting = haltingGuards(runtime);
  if (halting.length > 0) {
    const revision = (saved?.revision ?? 1);
    await ctx.emitKeyed(`${data.jobId}:${gateId}:${revision}:refused`, `${data.jobId}:${gateId}:${revision}:refused`, {
      kind: 'note', at: deps.clock.now(), level: 'warning',
      text: `Resume by ${mention(outcome.by)} refused: guard ${halting.map((guard) => `"${guard.name}"`).join(', ')} still ${halting.length === 1 ? 'halts' : 'halt'} the upgrade. Force (with a reason) resumes anyway.`,
    });
    await ctx.saveStepState({ [`gate:${gateId}`]: { revision: revision + 1 }, [`gate:${gateId}:card`]: undefined });
    return { kind: 'park', delayMs: 1_000 };
  }
  state.hold = undefined;
  await runtime.save();
  await ctx.emitKeyed(`${data.jobId}:${gateId}:resumed`, `${data.jobId}:${gateId}:resumed`, {
    kind: 'note', at: deps.clock.now(), level: 'info', text: `Resumed by ${mention(outcome.by)}: every guard is healthy again.`,
  });
  return { kind: 'resumed' };
}

/** What the card showed besides the guards, to tell when it must be edited. */
interface HoldStatus {
  /** When every guard that stopped the job was seen healthy again (cleared if one halts again). */
  recoveredAt?: number;
}

type KeptCard = BreachCard & { status?: HoldStatus };

/**
 * The breach card for this revision, edited in place (same gate, same revision: its buttons stay valid) when what it
 * says besides the guards changes: every held guard recovered (or one halts again).
 */
async function currentCard(runtime: JobRuntime, ctx: StepContext, gateId: string, revision: number, kept: KeptCard | undefined): Promise<KeptCard> {
  const { data, deps } = runtime;
  const now = deps.clock.now();
  const hold = data.guards!.hold!;
  const held = (runtime.clusterConfig.guards ?? []).filter((guard) => hold.guards.includes(guard.name));
  const recovered = held.length > 0 && held.every((guard) => {
    const track = data.guards!.tracks[guard.name];
    return track !== undefined && track.at > hold.since && !guardHalts(guard, track.status);
  });
  const status: HoldStatus = recovered ? { recoveredAt: kept?.status?.recoveredAt ?? now } : {};
  if (kept && kept.status?.recoveredAt === status.recoveredAt) return kept;
  const card: KeptCard = {
    ...(await breachCard(runtime, status.recoveredAt !== undefined ? { recoveredAt: formatUtcTime(status.recoveredAt) } : {})),
    status,
  };
  await ctx.saveStepState({ [`gate:${gateId}:card`]: card });
  if (kept) {
    // The card already posted at this revision is edited in place: a 'gate-opened' of the same gate under a new key
    // is delivered as a chat.update of that card (src/slack/thread/deliver-entry.ts).
    const gate: GateModel = {
      jobId: data.jobId, gateId, revision, title: card.title, details: card.details, actions: ['continue', 'force', 'abort'], continueLabel: 'Resume',
      ...(card.rollback ? { rollback: card.rollback } : {}),
    };
    // One key per version: a recovery (its time), or a new halt after one (the time it was seen).
    const key = `${data.jobId}:${gateId}:${revision}:edit:${status.recoveredAt ?? `held-${now}`}`;
    await deps.thread.postEvent(data.thread, key, { kind: 'gate-opened', at: now, gate });
  }
  return card;
}
