import type { GuardConfig } from '../../src/config/guards-config.js';
import { evaluateGuard, guardDue, guardHalts, guardRecovered } from '../../src/planning/guards/evaluate-guard.js';
import { renderSparkline, SPARKLINE_STEP_MS, SPARKLINE_WINDOW_MS } from '../../src/planning/guards/sparkline.js';
import { rollbackOfferOf, type GuardJobState, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { breachCardLines, guardStateLine, valueText } from '../../src/report/render-guard-lines.js';
import { mention } from '../../src/report/format-text.js';
import type { ClusterConfig } from '../../src/config/clusters-config.js';
import type { Clock } from '../../src/ports/clock.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';
import { evaluationOf, type GuardEvaluationStore } from '../../src/ports/guards/guard-evaluations.js';
import type { Logger } from '../../src/log/logger.js';
import type { RollbackOffer, TimelineEvent } from '../../src/ports/timeline-event.js';
import { formatUtc } from '../../src/planning/rollback-preflight.js';

/** What the guard watch needs of the job's runtime (jobs/worker/job-runtime.ts builds it; a narrower type keeps them apart). */
export interface GuardRuntime {
  data: UpgradeJobData;
  clusterConfig: ClusterConfig;
  deps: { clock: Clock; logger: Logger; guards?: GuardReader; guardEvaluations?: GuardEvaluationStore };
  save(): Promise<void>;
  /** Updates the status card (which shows each guard's state). */
  card?(): Promise<void>;
  emitKeyed(threadKey: string, logKey: string, event: TimelineEvent): Promise<void>;
}

/**
 * Guards while an upgrade job runs (issue 29, docs/guards.md). Every time the job or one of its steps looks at its
 * controls (the processor's safe point, a step's safe point between two nodes or add-ons, a follower's poll), the
 * guards whose interval has passed on the bot's clock are read and evaluated. A guard that halts (breached, or
 * unknown with onMissingData: halt) puts a hold on the job: the steps see it as a pause (the same path as the Pause
 * button: Karpenter budgets to nodes "0", no new drain, termination, node-group or add-on update), and the processor
 * posts the breach card — a gate approvers answer with Continue, Force (a reason) or Abort.
 *
 * Rollback jobs and dry runs are never held: nothing stands in the way of going back.
 */

/** Whether the job's guards stop it: never a rollback's (nor a dry run's, which changes nothing). */
export function guardsApply(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig' | 'deps'>): boolean {
  return guardsRead(runtime) && !runtime.data.rollback;
}

/** Whether the job's guards are read at all: a rollback's are, for its cards' information. */
function guardsRead(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig' | 'deps'>): boolean {
  const { data, clusterConfig, deps } = runtime;
  return !data.dryRun && (clusterConfig.guards?.length ?? 0) > 0 && deps.guards !== undefined;
}

function stateOf(data: UpgradeJobData): GuardJobState {
  return (data.guards ??= { tracks: {}, holdSeq: 0, overridden: {} });
}

/** Guards that stop the job now: halting and not forced past. */
export function haltingGuards(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig'>): GuardConfig[] {
  const state = runtime.data.guards;
  if (!state) return [];
  return (runtime.clusterConfig.guards ?? []).filter((guard) => {
    const track = state.tracks[guard.name];
    return track !== undefined && guardHalts(guard, track.status) && !state.overridden[guard.name];
  });
}

/**
 * Reads and evaluates the guards that are due (all of them with `all`), saves what changed, says in the thread when
 * a guard recovers, and opens a hold when one halts. Never throws for a guard: a failed read is an unknown reading.
 */
export async function watchGuards(runtime: GuardRuntime, options: { all?: boolean } = {}): Promise<void> {
  if (!guardsRead(runtime)) return;
  const { data, deps, clusterConfig } = runtime;
  const now = deps.clock.now();
  const state = stateOf(data);
  const due = clusterConfig.guards!.filter((guard) => options.all || guardDue(guard, state.tracks[guard.name], now));
  if (due.length === 0) return;
  const target = { region: clusterConfig.region, ...(data.roleArn ?? clusterConfig.roleArn ? { roleArn: data.roleArn ?? clusterConfig.roleArn } : {}) };
  const readings = await Promise.all(due.map((guard) => deps.guards!.read(guard, target)));
  let changed = false;
  for (const [index, guard] of due.entries()) {
    const previous = state.tracks[guard.name];
    const track = evaluateGuard(guard, previous, readings[index], now);
    state.tracks[guard.name] = track;
    if (previous?.status !== track.status) changed = true;
    if (previous && guardHalts(guard, previous.status) && !guardHalts(guard, track.status)) {
      // Recovered: a forced-past guard counts again from here, and the thread hears it.
      delete state.overridden[guard.name];
      await runtime.emitKeyed(`${data.jobId}:guard:${guard.name}:recovered:${previous.troubleSince ?? previous.since}`, `${data.jobId}:guard:${guard.name}:recovered:${previous.troubleSince ?? previous.since}`, {
        kind: 'note', at: now, level: 'info',
        text: `${data.rollback ? '(For information: guards never stop a rollback.) ' : ''}Guard "${guard.name}" recovered at ${new Date(now).toISOString().slice(11, 19)} UTC: ${valueText(guard, track)}.${state.hold ? (guard.autoResume ? ` The upgrade resumes by itself once it has held healthy for ${guard.forMs / 1000} s (autoResume).` : ' Resume on the breach card carries on.') : ''}`,
      });
    }
  }
  // What `status <cluster>` shows as each guard's last evaluation (status never reads the guards itself).
  const by = `${data.rollback ? 'rollback' : 'upgrade'} job \`${data.jobId}\``;
  await deps.guardEvaluations?.record(data.cluster, Object.fromEntries(due.map((guard) => [guard.name, evaluationOf(state.tracks[guard.name], by)])))
    .catch((err) => deps.logger.warn({ err, jobId: data.jobId }, 'could not record the guards\' last evaluations for status'));
  const halting = guardsApply(runtime) ? haltingGuards(runtime) : [];
  if (halting.length > 0 && !state.hold) {
    state.holdSeq += 1;
    state.hold = { seq: state.holdSeq, guards: halting.map((guard) => guard.name), since: now, ...(data.steps[data.stepIndex] ? { step: data.steps[data.stepIndex].title } : {}) };
    deps.logger.warn({ jobId: data.jobId, guards: state.hold.guards }, 'guard breached: holding the upgrade');
  }
  await runtime.save();
  if (changed) await runtime.card?.();
}

/** The hold's gate id: one breach card per hold. */
export function holdGateId(seq: number): string {
  return `guard-${seq}`;
}

/** Whether the job may resume on its own: every held guard has autoResume and has held healthy for its `for`. */
export function autoResumeDue(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig' | 'deps'>): GuardConfig[] | undefined {
  const state = runtime.data.guards;
  if (!state?.hold) return undefined;
  const now = runtime.deps.clock.now();
  const held = (runtime.clusterConfig.guards ?? []).filter((guard) => state.hold!.guards.includes(guard.name));
  if (held.length === 0 || !held.every((guard) => guard.autoResume && guardRecovered(guard, state.tracks[guard.name], now))) return undefined;
  if (haltingGuards(runtime).length > 0) return undefined;
  return held;
}

/** How long until the next guard is due (the most a parked job may sleep and still evaluate each interval). */
export function nextGuardDueInMs(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig' | 'deps'>): number | undefined {
  if (!guardsApply(runtime)) return undefined;
  const now = runtime.deps.clock.now();
  const tracks = runtime.data.guards?.tracks ?? {};
  return Math.max(1_000, Math.min(...runtime.clusterConfig.guards!.map((guard) => (tracks[guard.name] ? tracks[guard.name].at + guard.intervalMs - now : 0))));
}

/** Each guard's state for a gate card (for information on a rollback's gates). */
export function guardGateLines(runtime: Pick<GuardRuntime, 'data' | 'clusterConfig'>): string[] {
  const guards = runtime.clusterConfig.guards ?? [];
  if (guards.length === 0) return [];
  const state = runtime.data.guards;
  const heading = runtime.data.rollback ? 'Guards (for information: guards never stop a rollback):' : 'Guards (Continue is refused while one is breached or unknown; Force overrides):';
  return [heading, ...guards.map((guard) => guardStateLine(guard, state?.tracks[guard.name], state?.overridden[guard.name] ? { by: mention(state.overridden[guard.name].by) } : undefined))];
}

/** The breach card as the hold keeps it: built once per revision, edited in place when a guard recovers. */
export interface BreachCard {
  title: string;
  details: string[];
  /** Roll back, when EKS's window is open and the job moved the control plane (issue 29). */
  rollback?: RollbackOffer;
}

/**
 * The breach card's Roll back: the finished-job offer's rule (rollbackOfferOf in src/planning/upgrade-job-data.ts: the job moved the
 * control plane and EKS dated that update), while EKS's 7-day window is still open.
 */
export function breachRollbackOffer(data: UpgradeJobData, now: number): RollbackOffer | undefined {
  const offer = rollbackOfferOf(data);
  return offer && now <= offer.until ? offer : undefined;
}

/** The breach card's lines: the guards, their sparklines, the step, what is in motion and what AWS does on its own. */
export async function breachCard(runtime: GuardRuntime, extra: Pick<Parameters<typeof breachCardLines>[0], 'recoveredAt'> = {}): Promise<BreachCard> {
  const { data, deps, clusterConfig } = runtime;
  const hold = data.guards!.hold!;
  const now = deps.clock.now();
  const target = { region: clusterConfig.region, ...(data.roleArn ?? clusterConfig.roleArn ? { roleArn: data.roleArn ?? clusterConfig.roleArn } : {}) };
  const held = (clusterConfig.guards ?? []).filter((guard) => hold.guards.includes(guard.name));
  const guards = await Promise.all(
    held.map(async (guard) => {
      const points = await deps.guards!.history(guard, target, now - SPARKLINE_WINDOW_MS, now, SPARKLINE_STEP_MS).catch(() => undefined);
      return { guard, track: data.guards!.tracks[guard.name], ...(points ? { sparkline: renderSparkline(points) } : {}) };
    }),
  );
  const step = data.steps[data.stepIndex];
  const awsOnItsOwn = step
    ? Object.values(data.updates[step.id] ?? {})
        .filter((update) => !data.stepRuns[step.id]?.outcome)
        .map((update) => `${update.operation} of ${update.target} (${update.updateId})`)
    : [];
  const rollback = breachRollbackOffer(data, now);
  return {
    title: `Guard ${hold.guards.map((name) => `"${name}"`).join(', ')} stopped the upgrade of ${data.cluster}`,
    details: breachCardLines({
      guards, step: hold.step, inMotion: data.progress, awsOnItsOwn, approvers: clusterConfig.approvers.map(mention), ...extra,
      ...(rollback ? { rollback: { to: rollback.to, until: formatUtc(rollback.until) } } : {}),
    }),
    ...(rollback ? { rollback } : {}),
  };
}
