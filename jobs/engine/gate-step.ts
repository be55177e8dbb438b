import type { GateAction, GateModel } from '../../src/ports/timeline-event.js';
import type { StepContext, StepResult } from './step-context.js';
import { mention } from '../../src/report/format-text.js';

/**
 * Approval gates. The gate is recorded in Redis (gate-store.ts) and announced once (key
 * `${jobId}:${gateId}:${revision}`); the job then parks itself as a delayed BullMQ job, holding no worker slot,
 * until an answer (or an Abort) promotes it. Re-running this after a crash finds the same gate and revision, so
 * nothing is posted twice and an answer given meanwhile is honoured.
 */
export interface GateSpec {
  gateId: string;
  title: string;
  details: string[];
  actions: GateAction[];
  remedyLabel?: string;
  /** What blocks, one line each, when the producer names it apart from the card's details (see problemsOf). */
  problems?: string[];
  waivable?: GateModel['waivable'];
  /** The breach card itself: its Continue is judged by the hold (jobs/worker/guard-hold.ts), not here. */
  guardHold?: boolean;
  /** The breach card's Resume label and Roll back offer (jobs/worker/guard-hold.ts). */
  continueLabel?: string;
  rollback?: GateModel['rollback'];
}

export type GateOutcome =
  | { kind: 'answered'; action: GateAction; by: string; at: number; reason?: string }
  | { kind: 'result'; result: StepResult };

/** How often a parked gate wakes on its own (answers and aborts promote it at once; this is the safety net). */
export const GATE_RECHECK_MS = 10 * 60_000;
export const GATE_TIMEOUT_BY = 'gate-timeout';

interface GateStepState {
  revision?: number;
  openedAt?: number;
  reminded?: boolean;
}

/**
 * The gate's problems: the ones its producer names (the preflight's blocking findings); else, for a gate asked
 * because something blocks (it offers a remedy, or Force without Continue: a drain held by a PDB, a failed update),
 * its details but the "What to do:" line, which says what to do about them. An approval nothing blocks has none.
 */
export function problemsOf(spec: Pick<GateSpec, 'problems' | 'actions' | 'details'>): string[] {
  if (spec.problems) return spec.problems;
  const blocks = spec.actions.includes('remedy') || (spec.actions.includes('force') && !spec.actions.includes('continue'));
  return blocks ? spec.details.filter((line) => !line.startsWith(WHAT_TO_DO)) : [];
}

/** How a gate card's details say what to do about what blocks (the last line of a drain-block card). */
export const WHAT_TO_DO = 'What to do:';

export async function awaitGate(ctx: StepContext, spec: GateSpec): Promise<GateOutcome> {
  const { data, gates, clock } = ctx;
  const stateKey = `gate:${spec.gateId}`;
  const saved = (ctx.stepState()[stateKey] ?? {}) as GateStepState;
  const revision = saved.revision ?? 1;
  const openedAt = saved.openedAt ?? clock.now();
  if (saved.revision === undefined || saved.openedAt === undefined) await ctx.saveStepState({ [stateKey]: { revision, openedAt } });

  // Every gate shows the guards (issue 29) as they stood when the card was posted.
  const guardLines = spec.guardHold ? [] : (ctx.guards?.().lines ?? []);
  // Where guards apply, Force is offered beside Continue, since Continue is refused while a guard halts.
  const guarded = !spec.guardHold && ctx.guards?.().applies && spec.actions.includes('continue') && !spec.actions.includes('force');
  const problems = problemsOf(spec);
  const gate: GateModel = {
    jobId: data.jobId,
    gateId: spec.gateId,
    revision,
    title: spec.title,
    details: [...spec.details, ...guardLines],

    actions: guarded ? [...spec.actions.filter((action) => action !== 'abort'), 'force', ...spec.actions.filter((action) => action === 'abort')] : spec.actions,
    remedyLabel: spec.remedyLabel,
    ...(problems.length ? { problems } : {}),
    ...(spec.waivable?.length ? { waivable: spec.waivable } : {}),
    ...(spec.continueLabel ? { continueLabel: spec.continueLabel } : {}),
    ...(spec.rollback ? { rollback: spec.rollback } : {}),
  };
  const threadKey = `${data.jobId}:${spec.gateId}:${revision}`;
  await gates.open(gate, openedAt);
  await ctx.emitKeyed(threadKey, threadKey, { kind: 'gate-opened', at: openedAt, gate });

  let record = await gates.read(data.jobId, spec.gateId);
  const controls = await ctx.controls();
  if (record?.state === 'open' && controls.abort) {
    // An Abort from the command line or the status card answers the open gate, so its card says so too.
    await gates.answer(data.jobId, spec.gateId, revision, { action: 'abort', by: controls.abort.by, at: controls.abort.at });
    record = await gates.read(data.jobId, spec.gateId);
  }

  const timeoutMinutes = ctx.clusterConfig.gateTimeoutMinutes;
  const dueAt = timeoutMinutes ? openedAt + timeoutMinutes * 60_000 : undefined;
  if (record?.state === 'open' && dueAt !== undefined && clock.now() >= dueAt) {
    if (!saved.reminded) {
      await ctx.emitKeyed(`${threadKey}:reminder`, `${threadKey}:reminder`, {
        kind: 'note',
        at: clock.now(),
        level: 'warning',
        text: `Reminder: "${spec.title}" has waited ${timeoutMinutes} minutes for an approver.${ctx.clusterConfig.abortOnGateTimeout ? ' The job stops here, as configured (abortOnGateTimeout).' : ''}`,
      });
      await ctx.saveStepState({ [stateKey]: { revision, openedAt, reminded: true } });
    }
    if (ctx.clusterConfig.abortOnGateTimeout) {
      await gates.answer(data.jobId, spec.gateId, revision, { action: 'timeout', by: GATE_TIMEOUT_BY, at: clock.now() });
      record = await gates.read(data.jobId, spec.gateId);
    }
  }

  if (record?.state === 'answered' && record.answer && record.gate.revision === revision) {
    const { action, by, at, reason } = record.answer;
    ctx.metrics?.observeGateWaitSeconds(Math.max(0, at - openedAt) / 1000);
    // Same thread key as the gate card: the thread turns this into an update of that card (buttons gone).
    await ctx.emitKeyed(threadKey, `${threadKey}:answered`, { kind: 'gate-answered', at, gate: record.gate, action, by, reason });
    if (action === 'abort' || action === 'timeout') {
      const why = action === 'timeout' ? `nobody answered "${spec.title}" within ${timeoutMinutes} minutes` : `${mention(by)} chose Abort at "${spec.title}"`;
      return { kind: 'result', result: { outcome: 'abort', by, reason: why } };
    }
    if (action === 'continue' && !spec.guardHold && ctx.guards?.().applies) {
      // Continue is refused while a guard is breached or unknown (fresh readings); Force overrides, with its reason.
      await ctx.refreshGuards?.();
      const halting = ctx.guards().halting;
      if (halting.length > 0) {
        await ctx.emitKeyed(`${threadKey}:guard-refused`, `${threadKey}:guard-refused`, {
          kind: 'note', at: clock.now(), level: 'warning',
          text: `Continue by ${mention(by)} refused at "${spec.title}": guard ${halting.map((name) => `"${name}"`).join(', ')} ${halting.length === 1 ? 'is' : 'are'} breached or unknown. The gate is asked again; Force (with a reason) carries on anyway.`,
        });
        await reopenGate(ctx, spec.gateId);
        return { kind: 'result', result: { outcome: 'wait', delayMs: 1_000 } };
      }
    }
    return { kind: 'answered', action, by, at, reason };
  }

  // A guard's breach card holds the job paused, also while it wakes to read the guards again: never "waiting for
  // approval" in between (the status card and getJob would flicker between the two).
  await ctx.setState(spec.guardHold ? 'paused' : 'waiting-approval');
  const untilDue = dueAt !== undefined && clock.now() < dueAt ? dueAt - clock.now() : GATE_RECHECK_MS;
  return {
    kind: 'result',
    result: {
      outcome: 'wait',
      delayMs: Math.max(1_000, Math.min(GATE_RECHECK_MS, untilDue)),
      wakeEarly: async () => {
        const latest = await gates.read(data.jobId, spec.gateId);
        return latest?.state !== 'open' || !!(await ctx.controls()).abort;
      },
    },
  };
}

/**
 * Opens the same gate again at the next revision (e.g. a retry failed the same way): the old card's buttons become
 * stale and the next awaitGate posts a fresh card.
 */
export async function reopenGate(ctx: StepContext, gateId: string): Promise<void> {
  const stateKey = `gate:${gateId}`;
  const saved = (ctx.stepState()[stateKey] ?? {}) as GateStepState;
  await ctx.saveStepState({ [stateKey]: { revision: (saved.revision ?? 0) + 1 } });
}

/**
 * Answers with Abort every gate of the current step that is still open, and updates their cards: used when the
 * job is aborted at a safe point while parked at a gate.
 */
export async function abortOpenGates(ctx: StepContext, by: string, at: number): Promise<void> {
  for (const [stateKey, value] of Object.entries(ctx.stepState())) {
    if (!stateKey.startsWith('gate:')) continue;
    const gateId = stateKey.slice('gate:'.length);
    const { revision } = value as GateStepState;
    if (revision === undefined) continue;
    const outcome = await ctx.gates.answer(ctx.data.jobId, gateId, revision, { action: 'abort', by, at });
    const record = await ctx.gates.read(ctx.data.jobId, gateId);
    if (outcome.outcome !== 'accepted' || !record?.answer) continue;
    const threadKey = `${ctx.data.jobId}:${gateId}:${revision}`;
    await ctx.emitKeyed(threadKey, `${threadKey}:answered`, { kind: 'gate-answered', at, gate: record.gate, action: 'abort', by });
  }
}
