/**
 * Upgrade rollouts in waves (docs/fleet.md). A rollout is a record in Redis and, per wave, one BullMQ
 * flow on the `rollout` queue: a parent `wave` job whose children are at most `maxParallel` `lane` jobs, each lane
 * upgrading its share of the wave's clusters one after the other through the same path as `start` (the plan made
 * when the wave's gate opened, then UpgradeControl.start: the cluster's own thread, gates and controls). BullMQ runs
 * the parent once every lane has finished: a failed cluster stops its lane, the others start nothing new, and the
 * parent reports the reason in the rollout's thread; otherwise it soaks (on the bot's Clock), checks every cluster
 * of the wave is healthy (at the target, nodes at the target, no running job), plans the next wave and opens its
 * gate, which an approver answers with Continue.
 */

import { readPlan } from '../../src/cluster-reader/read-and-plan.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DelayedError, type Job, type Worker } from 'bullmq';
import { findCluster, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { Logger } from '../../src/log/logger.js';
import { isTerminal } from '../../src/planning/upgrade-job-data.js';
import type { ChannelPoster } from '../../src/ports/slack/channel-poster.js';
import type { Clock } from '../../src/ports/clock.js';
import type { RolloutControl, RolloutRequest, RolloutSummary } from '../../src/ports/rollout-control.js';
import type { UpgradeControl } from '../../src/ports/upgrade-control.js';
import { formatMinutes, type UpgradePlan } from '../../src/ports/upgrade-plan.js';
import { unwaivedErrors } from '../../src/ports/finding.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { fallbackText, listNames, mrkdwnSection } from '../../src/report/blocks/block-kit-limits.js';
import { buildClusterStatus } from '../../src/report/cluster-status.js';
import { describeDuration, renderRolloutGate, renderRolloutParent, type GatePlanLine, type RolloutMessages } from '../../src/report/blocks/render-rollout-messages.js';
import { mapBounded, withDeadline } from '../../src/cluster-reader/bounded.js';
import { collectSnapshot, type SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { mention } from '../../src/report/format-text.js';
import type { QueueKit } from '../../src/store/queue-kit.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';
import type { GuardEvaluationStore } from '../../src/ports/guards/guard-evaluations.js';
import { createGuardEvaluationStore } from '../../src/store/guard-evaluation-store.js';
import { checkSoakGuards, soakHaltClauses } from './rollout-soak-guards.js';

export const ROLLOUT_QUEUE = 'rollout';
/** Rollout jobs (lanes and wave parents) one worker process runs at once: `--max-parallel` is at most 50. */
export const ROLLOUT_WORKER_CONCURRENCY = 2 * 50 + 4;
const READ_TIMEOUT_MS = 60_000;
/** Clusters a wave's gate plans at once. */
const GATE_PLAN_CONCURRENCY = 8;

type RolloutJobData = { id: string; wave: number; clusters?: string[] };

/** Thrown out of a wait when this worker shuts down: the job is handed back to the queue for another worker. */
class Parked extends Error {}

export interface RolloutEngineOptions {
  /** The entry point's Redis connections and BullMQ objects (src/store/queue-kit.ts); rollouts live under its prefix. */
  queues: QueueKit;
  config: ClustersConfig;
  sources: SnapshotSources;
  control: UpgradeControl;
  poster: ChannelPoster;
  logger: Logger;
  /**
   * The clock a read of a cluster is bounded on (default: the sources' clock). The bot passes the system clock: a
   * simulated clock running 300 times faster would give a 60 s read a fifth of a second of real time.
   */
  deadlineClock?: Clock;
  /** How often a lane looks at its cluster's job (on the Clock). */
  pollMs?: number;
  /** Worker lock tuning (tests shorten it to show a killed worker's lanes taken over). */
  worker?: { lockDurationMs?: number; stalledIntervalMs?: number };
  /** The Slack waivers a wave's plans count, as `plan` does. */
  waivers?: WaiverStore;
  /** Reads clusters.yaml's guards during a soak (issue 29); without it a soak watches no guard. */
  guards?: GuardReader;
  /** Where the soak records each guard's last evaluation, for `status` (default: in Redis, src/store/guard-evaluation-store.ts). */
  guardEvaluations?: GuardEvaluationStore;
}

export interface RolloutEngine {
  control: RolloutControl;
  startWorker(): Promise<void>;
  close(): Promise<void>;
}

interface StoredPlan {
  from: string;
  plan: UpgradePlan;
}

const link = (channel: string, ts: string, label: string) => `<https://slack.com/archives/${channel}/p${ts.replace('.', '')}|${label}>`;
const section = (text: string): SlackMessage => ({ text: fallbackText(text.replace(/[*]/g, '')), blocks: [mrkdwnSection(text)] });

export { describeDuration };

export function createRolloutEngine(opts: RolloutEngineOptions): RolloutEngine {
  const clock = opts.sources.clock;
  const deadlineClock = opts.deadlineClock ?? clock;
  const { queues } = opts;
  const { prefix } = queues;
  const redis = queues.redis({ maxRetriesPerRequest: null });
  // Lost connections are logged once per outage by the workers' error handlers (src/log/redis-outage.ts); ioredis
  // would print a stack trace to stderr for each retry of a client without a listener.
  redis.on('error', () => undefined);
  const flows = queues.flowProducer({ maxRetriesPerRequest: null });
  flows.on('error', () => undefined);
  const logger = opts.logger.child({ component: 'rollout' });
  const guardEvaluations = opts.guardEvaluations ?? createGuardEvaluationStore(redis, prefix);
  // Polls are on the Clock (so a soak is simulated time) but never hotter than every 250 real ms.
  const pollFloorMs = 250 * (clock.speed !== undefined && Number.isFinite(clock.speed) ? clock.speed : 1);
  const pollMs = Math.max(opts.pollMs ?? 5_000, pollFloorMs);
  const key = (id: string, part = '') => `${prefix}:rollout:${id}${part}`;
  let worker: Worker<RolloutJobData> | undefined;
  const draining = new AbortController();
  // Every waiting lane and soak listens on it: as many as the worker's slots, not Node's default warning at 10.
  setMaxListeners(ROLLOUT_WORKER_CONCURRENCY + 10, draining.signal);
  /** Waits on the Clock; a shutdown ends the wait by parking the job (a lane or a soak resumes on another worker). */
  const wait = (ms: number) =>
    clock.sleep(ms, draining.signal).catch(() => {
      throw new Parked('worker shutting down');
    });

  async function load(id: string): Promise<RolloutSummary | undefined> {
    const [raw, jobs, results, paused] = await Promise.all([redis.get(key(id)), redis.hgetall(key(id, ':jobs')), redis.hgetall(key(id, ':results')), redis.get(key(id, ':paused'))]);
    if (!raw) return undefined;
    return { ...(JSON.parse(raw) as RolloutSummary), jobs, results, paused: paused === '1' };
  }
  async function save(rollout: RolloutSummary): Promise<void> {
    const { jobs: _jobs, results: _results, paused: _paused, ...record } = rollout;
    await redis.set(key(rollout.id), JSON.stringify(record));
  }
  async function update(id: string, change: (rollout: RolloutSummary) => void): Promise<RolloutSummary> {
    const rollout = (await load(id))!;
    change(rollout);
    await save(rollout);
    return rollout;
  }
  const say = (rollout: Pick<RolloutSummary, 'channel' | 'threadTs'>, text: string) =>
    opts.poster.post(rollout.channel, section(text), rollout.threadTs).catch((err) => logger.warn({ err }, 'could not post in the rollout thread'));
  /** Posts a message and its follow-ups (the rest of a long list) in `threadTs`; the first post's failure throws. */
  async function postPaged(channel: string, messages: RolloutMessages, threadTs?: string): Promise<{ ts: string }> {
    const posted = await opts.poster.post(channel, messages.first, threadTs);
    for (const followUp of messages.followUps) {
      await opts.poster.post(channel, followUp, threadTs ?? posted.ts).catch((err) => logger.warn({ err }, 'could not post the rest of a rollout list'));
    }
    return posted;
  }

  async function planCluster(name: string, to: string): Promise<StoredPlan | { error: string }> {
    const cluster = findCluster(opts.config, name)!;
    try {
      const eks = opts.sources.eks({ region: cluster.region, roleArn: cluster.roleArn });
      const from = (await eks.describeCluster(cluster.name)).version ?? '';
      // The read and plan `plan` and `start` make (src/cluster-reader/read-and-plan.ts).
      const { plan } = await readPlan(opts.sources, { name: cluster.name, region: cluster.region, roleArn: cluster.roleArn, config: cluster, from, to, waivers: opts.waivers, timeoutMs: READ_TIMEOUT_MS, deadlineClock });
      return { from, plan };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  /**
   * Plans the wave's clusters and posts the gate that opens it (Continue / Abort), showing those plans. Throws when
   * Slack refuses the gate card: the caller decides what that means for the rollout.
   */
  async function openGate(rollout: RolloutSummary): Promise<void> {
    const wave = rollout.waves[rollout.wave];
    const lines: GatePlanLine[] = [];
    const plans: Record<string, StoredPlan> = {};
    // A few plans at once: one after the other, a wave of 100 kept its gate closed for ≈ 25 s (a plan is ≈ 100 reads).
    const plannedAll = await mapBounded(wave.clusters, GATE_PLAN_CONCURRENCY, (name) => planCluster(name, rollout.to));
    for (const [index, name] of wave.clusters.entries()) {
      const planned = plannedAll[index]!;
      if ('error' in planned) {
        lines.push({ cluster: name, summary: `cannot be planned: ${planned.error}`, planned: false });
        continue;
      }
      plans[name] = planned;
      const steps = planned.plan.hops.reduce((sum, hop) => sum + hop.steps.length, 0);
      const blocking = unwaivedErrors(planned.plan.findings).length;
      lines.push({ cluster: name, summary: `${planned.from} → ${rollout.to}: ${steps} steps, ${formatMinutes(planned.plan.estimateMinutes)}, ${blocking} blocking finding${blocking === 1 ? '' : 's'}`, planned: true });
    }
    await redis.set(key(rollout.id, `:plans:${rollout.wave}`), JSON.stringify(plans));
    await postPaged(rollout.channel, renderRolloutGate(rollout, lines), rollout.threadTs);
  }

  async function runLane(job: Job<RolloutJobData>): Promise<Record<string, string>> {
    try {
      return await followLane(job);
    } catch (error) {
      if (error instanceof Parked) throw error;
      // Whatever went wrong, the rollout stops with a sentence rather than waiting for a lane that will not finish.
      const reason = `a lane of wave ${job.data.wave + 1} stopped: ${(error as Error).message}`;
      await update(job.data.id, (r) => {
        if (r.state === 'running') {
          r.state = 'failed';
          r.reason = reason;
        }
      });
      logger.error({ err: error, rollout: job.data.id }, 'rollout lane failed');
      return {};
    }
  }

  async function followLane(job: Job<RolloutJobData>): Promise<Record<string, string>> {
    const { id, wave } = job.data;
    const outcome: Record<string, string> = {};
    const plans = JSON.parse((await redis.get(key(id, `:plans:${wave}`))) ?? '{}') as Record<string, StoredPlan>;
    for (const name of job.data.clusters ?? []) {
      let rollout = (await load(id))!;
      if (rollout.state !== 'running') break; // failed or aborted elsewhere: start nothing new
      const cluster = findCluster(opts.config, name)!;
      let jobId = rollout.jobs[name];
      if (!jobId) {
        let started: Awaited<ReturnType<UpgradeControl['start']>> | { ok: false; error: string };
        try {
          started = await opts.control.start(
            { cluster: name, region: cluster.region, to: rollout.to, requestedBy: rollout.requestedBy, channel: rollout.channel, dryRun: false },
            plans[name].from,
            plans[name].plan,
          );
        } catch (error) {
          started = { ok: false as const, error: (error as Error).message };
        }
        // A lane re-run after a crash between the start and recording it finds its own job running: follow it.
        if (!started.ok && 'job' in started && started.job.to === rollout.to && started.job.requestedBy === rollout.requestedBy && started.job.startedAt >= rollout.createdAt) {
          started = { ok: true as const, job: started.job };
        }
        if (!started.ok) {
          const why = 'error' in started ? `could not be started (${started.error})` : `already had an upgrade running (job \`${started.job.jobId}\`)`;
          outcome[name] = 'failed';
          await redis.hset(key(id, ':results'), name, 'failed');
          await update(id, (r) => {
            if (r.state === 'running') {
              r.state = 'failed';
              r.reason = `${name} ${why}`;
            }
          });
          return outcome;
        }
        jobId = started.job.jobId;
        // Recorded once: a lane re-run after a crash follows this job instead of starting another.
        if ((await redis.hsetnx(key(id, ':jobs'), name, jobId)) === 1) {
          await say(rollout, `:arrow_forward: *${name}* ${plans[name].from} → ${rollout.to} started (job \`${jobId}\`): ${link(started.job.thread.channel, started.job.thread.ts, 'its thread')}`);
        }
      }
      for (;;) {
        const summary = await opts.control.getJob(jobId);
        if (!summary || isTerminal(summary.state)) {
          const state = summary?.state ?? 'failed';
          outcome[name] = state;
          await redis.hset(key(id, ':results'), name, state);
          if (state !== 'succeeded') {
            const reason = `${name}'s upgrade ${state === 'aborted' ? 'was aborted' : 'failed'}${summary ? ` at step ${summary.currentStep}` : ''} (job \`${jobId}\`${summary ? `, ${link(summary.thread.channel, summary.thread.ts, 'its thread')}` : ''})`;
            rollout = await update(id, (r) => {
              if (r.state === 'running') {
                r.state = 'failed';
                r.reason = reason;
              }
            });
            return outcome;
          }
          await say(rollout, `:white_check_mark: *${name}* is at ${rollout.to}.`);
          break;
        }
        await wait(pollMs);
      }
    }
    return outcome;
  }

  async function runWave(job: Job<RolloutJobData>): Promise<void> {
    const { id, wave } = job.data;
    let rollout = (await load(id))!;
    if (rollout.wave !== wave) return; // a re-run of a wave already finished
    if (rollout.state === 'failed' || rollout.state === 'aborted') {
      if (!(await redis.set(key(id, `:stopped:${wave}`), '1', 'NX'))) return;
      const why = rollout.state === 'aborted' ? `it was aborted${rollout.reason ? ` (${rollout.reason})` : ''}` : rollout.reason ?? 'a cluster failed';
      await say(rollout, `:octagonal_sign: *Wave ${wave + 1} stopped and the rollout with it*: ${why}. Clusters of later waves were not touched.`);
      return;
    }
    if (rollout.state === 'running') {
      rollout = await update(id, (r) => {
        r.state = 'soaking';
        (r as RolloutSummary & { soakUntil?: number }).soakUntil = clock.now() + r.soakMs;
      });
      const watched = opts.guards ? guardCount(rollout.waves[wave].clusters) : 0;
      await say(rollout, `:hourglass_flowing_sand: *Wave ${wave + 1} upgraded* (${listNames(rollout.waves[wave].clusters, { where: 'listed in its gate above' })}); soaking ${describeDuration(rollout.soakMs)} before the next gate${watched > 0 ? `, watching ${watched} guard${watched === 1 ? '' : 's'} (a breach stops the rollout)` : ''}.`);
    }
    const soakUntil = (rollout as RolloutSummary & { soakUntil?: number }).soakUntil ?? clock.now();
    // Every guard of every cluster of the wave, at its interval, for as long as the soak runs (jobs/rollout/rollout-soak-guards.ts).
    const guardsDeps = opts.guards && { config: opts.config, reader: opts.guards, now: () => clock.now(), redis, tracksKey: key(id, `:soak-guards:${wave}`), evaluations: guardEvaluations, by: `the soak of wave ${wave + 1} of rollout \`${id}\``, logger };
    for (;;) {
      const guards = guardsDeps ? await checkSoakGuards(guardsDeps, rollout.waves[wave].clusters) : { halting: [] };
      if (guards.halting.length > 0) {
        const clauses = soakHaltClauses(guards.halting);
        // At most five named, so the sentence and what to do next stay within one Slack section.
        const named = `${clauses.slice(0, 5).join('; ')}${clauses.length > 5 ? `; and ${clauses.length - 5} more guards` : ''}`;
        rollout = await update(id, (r) => {
          r.state = 'failed';
          r.reason = `during the soak of wave ${wave + 1}, ${named}`;
        });
        await say(rollout, `:octagonal_sign: *The soak of wave ${wave + 1} failed and the rollout stops*: ${named}. No later wave starts; the clusters of this wave stay at ${rollout.to} (\`/eks-upgrade rollback <cluster>\` takes one back).`);
        return;
      }
      if (clock.now() >= soakUntil) break;
      // Until the next guard is due (never hotter than the poll floor), the next poll, or the soak's end.
      await wait(Math.min(soakUntil - clock.now(), Math.max(pollFloorMs, Math.min(pollMs, guards.nextDueInMs ?? Infinity))));
      const fresh = await load(id);
      if (fresh?.state !== 'soaking') return;
    }
    const problems = await healthProblems(rollout, rollout.waves[wave].clusters);
    if (problems.length > 0) {
      rollout = await update(id, (r) => {
        r.state = 'failed';
        r.reason = `after the soak, ${problems.join('; ')}`;
      });
      await say(rollout, `:x: *The soak gate of wave ${wave + 1} failed*: ${problems.join('; ')}. The rollout stops.`);
      return;
    }
    if (wave + 1 >= rollout.waves.length) {
      rollout = await update(id, (r) => void (r.state = 'succeeded'));
      await say(rollout, `:checkered_flag: *Rollout to ${rollout.to} succeeded*: ${rollout.waves.length} waves, ${rollout.waves.reduce((n, w) => n + w.clusters.length, 0)} clusters, each healthy after its soak.`);
      return;
    }
    rollout = await update(id, (r) => {
      r.state = 'gate';
      r.wave = wave + 1;
    });
    const watched = opts.guards ? guardCount(rollout.waves[wave].clusters) : 0;
    await say(rollout, `:white_check_mark: *Wave ${wave + 1} is healthy after its soak* (nodes at ${rollout.to}, no job running${watched > 0 ? `, ${watched} guard${watched === 1 ? '' : 's'} healthy throughout` : ''}).`);
    await openGate(rollout).catch(async (error: unknown) => {
      // The rollout waits at this gate either way; without its card, the command is the way through.
      logger.error({ err: error, rollout: id }, 'posting a rollout gate card failed');
      await say(rollout, `:warning: Posting the gate card of wave ${wave + 2} failed (${(error as Error).message}); the rollout waits at that gate: \`/eks-upgrade rollout continue ${id}\` starts the wave, \`/eks-upgrade rollout abort ${id}\` ends the rollout.`);
    });
  }

  /** How many guards the soak of these clusters watches (clusters.yaml `guards:`). */
  const guardCount = (clusters: string[]) => clusters.reduce((sum, name) => sum + (findCluster(opts.config, name)?.guards?.length ?? 0), 0);

  /** Why a wave's clusters are not healthy after the soak (version, nodes at the target, a job still running). */
  async function healthProblems(rollout: RolloutSummary, clusters: string[]): Promise<string[]> {
    const problems: string[] = [];
    for (const name of clusters) {
      const cluster = findCluster(opts.config, name)!;
      try {
        const snapshot = await withDeadline(collectSnapshot(opts.sources, { name, region: cluster.region, roleArn: cluster.roleArn }), READ_TIMEOUT_MS, `Reading ${name}`, deadlineClock);
        const status = buildClusterStatus(snapshot);
        if (status.error) problems.push(`${name} cannot be read (${status.error})`);
        else if (!status.version?.startsWith(rollout.to)) problems.push(`${name} is at ${status.version}, not ${rollout.to}`);
        else if (status.status !== 'ACTIVE') problems.push(`${name} is ${status.status}`);
        else {
          const behind = status.nodes.flatMap((group) => group.versions).filter((v) => v.minor !== rollout.to);
          if (behind.length > 0) problems.push(`${name} has nodes at ${[...new Set(behind.map((v) => v.minor ?? v.kubelet))].join(', ')}`);
        }
        if (await opts.control.findActive(name)) problems.push(`${name} has an upgrade running`);
      } catch (error) {
        problems.push(`${name} cannot be read (${(error as Error).message})`);
      }
    }
    return problems;
  }

  async function activeJobs(rollout: RolloutSummary): Promise<string[]> {
    const ids: string[] = [];
    for (const name of rollout.waves[rollout.wave]?.clusters ?? []) {
      const active = await opts.control.findActive(name);
      if (active) ids.push(active.jobId);
    }
    return ids;
  }

  const control: RolloutControl = {
    async create(request: RolloutRequest) {
      const id = `r${randomUUID().slice(0, 7)}`;
      // Nothing is saved until Slack has accepted the parent: a refused parent leaves no rollout behind.
      const parent = await postPaged(request.channel, renderRolloutParent(id, request));
      const rollout: RolloutSummary = { ...request, id, state: 'gate', wave: 0, threadTs: parent.ts, createdAt: clock.now(), jobs: {}, results: {}, paused: false };
      await save(rollout);
      await redis.zadd(`${prefix}:rollouts`, rollout.createdAt, id);
      try {
        await openGate(rollout);
      } catch (error) {
        // A rollout without its first gate card could only be continued by someone who knew its id: undo it, say so.
        await redis.multi().del(key(id), key(id, ':plans:0')).zrem(`${prefix}:rollouts`, id).exec();
        const why = (error as Error).message;
        await say(rollout, `:x: This rollout was not created: posting its gate card failed (${why}). Nothing was saved and nothing started.`);
        throw new Error(`posting the gate card of rollout ${id} failed (${why}), so the rollout was undone: nothing was saved and nothing started`, { cause: error });
      }
      return rollout;
    },
    get: load,
    async list(limit = 10) {
      const ids = await redis.zrevrange(`${prefix}:rollouts`, 0, limit - 1);
      return (await Promise.all(ids.map(load))).filter((r): r is RolloutSummary => r !== undefined);
    },
    async findActiveFor(cluster) {
      for (const rollout of await control.list(50)) {
        if (['gate', 'running', 'soaking'].includes(rollout.state) && rollout.waves.some((w) => w.clusters.includes(cluster))) return rollout;
      }
      return undefined;
    },
    async continue(id, userId) {
      const rollout = await load(id);
      if (!rollout) return { ok: false, message: `There is no rollout \`${id}\`.` };
      if (rollout.state !== 'gate') return { ok: false, message: `Rollout \`${id}\` has no open gate (it is ${rollout.state}).` };
      // One answer per gate, however many people click at once.
      if (!(await redis.set(key(id, `:continued:${rollout.wave}`), userId, 'NX'))) {
        return { ok: false, message: `Wave ${rollout.wave + 1} of rollout \`${id}\` was already started by <@${await redis.get(key(id, `:continued:${rollout.wave}`))}>.` };
      }
      await update(id, (r) => void (r.state = 'running'));
      const clusters = rollout.waves[rollout.wave].clusters;
      const laneCount = Math.min(rollout.maxParallel, clusters.length);
      const lanes = Array.from({ length: laneCount }, (_, lane) => clusters.filter((_, index) => index % laneCount === lane));
      await flows.add({
        name: 'wave',
        queueName: ROLLOUT_QUEUE,
        data: { id, wave: rollout.wave },
        opts: { jobId: `${id}-wave-${rollout.wave}` },
        children: lanes.map((lane, index) => ({ name: 'lane', queueName: ROLLOUT_QUEUE, data: { id, wave: rollout.wave, clusters: lane }, opts: { jobId: `${id}-wave-${rollout.wave}-lane-${index}` } })),
      });
      const message = `Wave ${rollout.wave + 1} of rollout \`${id}\` started by ${mention(userId)}: ${listNames(clusters, { where: "listed in the gate card in the rollout's thread" })}.`;
      await say(rollout, `:arrow_forward: ${message}`);
      return { ok: true, message };
    },
    async pause(id, userId) {
      const rollout = await load(id);
      if (!rollout) return { ok: false, message: `There is no rollout \`${id}\`.` };
      await redis.set(key(id, ':paused'), '1');
      const ids = await activeJobs(rollout);
      for (const jobId of ids) await opts.control.pause(jobId, userId);
      return { ok: true, message: `Paused rollout \`${id}\`: ${ids.length} running upgrade${ids.length === 1 ? '' : 's'} stop at their next safe point.` };
    },
    async resume(id, userId) {
      const rollout = await load(id);
      if (!rollout) return { ok: false, message: `There is no rollout \`${id}\`.` };
      await redis.del(key(id, ':paused'));
      const ids = await activeJobs(rollout);
      for (const jobId of ids) await opts.control.resume(jobId, userId);
      return { ok: true, message: `Resumed rollout \`${id}\` and its ${ids.length} upgrade${ids.length === 1 ? '' : 's'}.` };
    },
    async abort(id, userId) {
      const rollout = await load(id);
      if (!rollout) return { ok: false, message: `There is no rollout \`${id}\`.` };
      if (['succeeded', 'failed', 'aborted'].includes(rollout.state)) return { ok: false, message: `Rollout \`${id}\` already ended (${rollout.state}).` };
      const wasGate = rollout.state === 'gate';
      await update(id, (r) => {
        r.state = 'aborted';
        r.reason = `aborted by ${mention(userId)}`;
      });
      const ids = await activeJobs(rollout);
      for (const jobId of ids) await opts.control.abort(jobId, userId);
      if (wasGate) await say(rollout, `:octagonal_sign: *Rollout aborted* by ${mention(userId)} at the gate of wave ${rollout.wave + 1}; nothing more starts.`);
      return { ok: true, message: `Aborted rollout \`${id}\`: nothing more starts${ids.length > 0 ? ` and ${ids.length} running upgrade${ids.length === 1 ? '' : 's'} stop after the current AWS operation` : ''}.` };
    },
  };

  return {
    control,
    async startWorker() {
      const processor = async (job: Job<RolloutJobData>, token?: string) => {
        try {
          return await (job.name === 'lane' ? runLane(job) : runWave(job));
        } catch (error) {
          if (!(error instanceof Parked)) throw error;
          await job.moveToDelayed(Date.now() + 500, token);
          throw new DelayedError();
        }
      };
      worker = queues.worker<RolloutJobData>(ROLLOUT_QUEUE, processor, { maxRetriesPerRequest: null }, {
        // Lanes mostly wait on their cluster's job: slots for two rollouts at the largest --max-parallel (50 lanes
        // each) and their wave parents. With 20, a rollout at --max-parallel 50 ran 20 upgrades at once, not 50.
        concurrency: ROLLOUT_WORKER_CONCURRENCY,
        // A worker killed mid-wave leaves its lanes stalled; another worker picks them up and follows the same jobs.
        maxStalledCount: 10,
        lockDuration: opts.worker?.lockDurationMs ?? 30_000,
        stalledInterval: opts.worker?.stalledIntervalMs ?? 30_000,
      });
      worker.on('error', (err) => logger.error({ err }, 'rollout worker error'));
      worker.on('failed', (job, err) => logger.warn({ err, job: job?.id }, 'rollout job failed'));
      await worker.waitUntilReady();
    },
    async close() {
      draining.abort(new Error('rollout worker shutting down'));
      await worker?.close();
      await flows.close();
    },
  };
}
