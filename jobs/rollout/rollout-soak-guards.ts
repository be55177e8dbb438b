/**
 * Guards during a rollout's soak (issue 29, docs/fleet.md): a wave's soak passes only if every guard of every
 * cluster in the wave stayed healthy through it. The wave job calls `check` from its soak loop: the guards whose
 * interval has passed on the bot's Clock are read and evaluated with the same evaluator as an upgrade job's
 * (src/planning/guards/evaluate-guard.ts, so a Prometheus guard's `for` counts here too), their tracks saved in
 * Redis beside the rollout (a soak resumed on another worker carries on with them), each cluster's last evaluation
 * recorded for `status`, and the guards that halt — breached, or unknown with onMissingData: halt — returned.
 * Nothing reads a guard outside a soak: `check` is called only from the soak loop.
 */

import { findCluster, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { GuardConfig } from '../../src/config/guards-config.js';
import { evaluateGuard, guardDue, guardHalts, type GuardTrack } from '../../src/planning/guards/evaluate-guard.js';
import { evaluationOf, type GuardEvaluationStore } from '../../src/ports/guards/guard-evaluations.js';
import type { GuardReader } from '../../src/ports/guards/guard-port.js';
import type { Logger } from '../../src/log/logger.js';
import { escapeMrkdwn, formatUtcTime } from '../../src/report/format-text.js';
import { valueText } from '../../src/report/render-guard-lines.js';
import type { RedisClient } from '../../src/store/redis-connection.js';

export interface SoakGuardsDeps {
  config: ClustersConfig;
  reader: GuardReader;
  /** The rollout's clock (the bot's Clock). */
  now(): number;
  redis: RedisClient;
  /** The key of this soak's tracks, e.g. `<prefix>:rollout:<id>:soak-guards:<wave>`. */
  tracksKey: string;
  evaluations?: GuardEvaluationStore;
  /** "the soak of wave 1 of rollout `r1a2b3c4`", for the record `status` shows. */
  by: string;
  logger: Logger;
}

/** A guard that stops the rollout, with the track that says why. */
export interface SoakHalt {
  cluster: string;
  guard: GuardConfig;
  track: GuardTrack;
}

export interface SoakGuardCheck {
  halting: SoakHalt[];
  /** Clock ms until the next guard is due; undefined when the wave's clusters have no guards. */
  nextDueInMs?: number;
}

/** Reads and evaluates the due guards of `clusters`; never throws for a guard (a failed read is an unknown reading). */
export async function checkSoakGuards(deps: SoakGuardsDeps, clusters: string[]): Promise<SoakGuardCheck> {
  const watched = clusters.flatMap((name) => {
    const cluster = findCluster(deps.config, name);
    return (cluster?.guards ?? []).map((guard) => ({ cluster: name, target: { region: cluster!.region, ...(cluster!.roleArn ? { roleArn: cluster!.roleArn } : {}) }, guard }));
  });
  if (watched.length === 0) return { halting: [] };
  const tracks = JSON.parse((await deps.redis.get(deps.tracksKey)) ?? '{}') as Record<string, Record<string, GuardTrack>>;
  const now = deps.now();
  const due = watched.filter(({ cluster, guard }) => guardDue(guard, tracks[cluster]?.[guard.name], now));
  if (due.length > 0) {
    const readings = await Promise.all(due.map(({ guard, target }) => deps.reader.read(guard, target)));
    const recorded: Record<string, Record<string, GuardConfig>> = {};
    for (const [index, { cluster, guard }] of due.entries()) {
      (tracks[cluster] ??= {})[guard.name] = evaluateGuard(guard, tracks[cluster][guard.name], readings[index], now);
      (recorded[cluster] ??= {})[guard.name] = guard;
    }
    await deps.redis.set(deps.tracksKey, JSON.stringify(tracks), 'EX', 30 * 24 * 3600);
    for (const [cluster, guards] of Object.entries(recorded)) {
      const evaluations = Object.fromEntries(Object.keys(guards).map((name) => [name, evaluationOf(tracks[cluster][name], deps.by)]));
      await deps.evaluations?.record(cluster, evaluations).catch((err) => deps.logger.warn({ err, cluster }, 'could not record the soak\'s guard evaluations for status'));
    }
  }
  const halting = watched
    .map(({ cluster, guard }) => ({ cluster, guard, track: tracks[cluster]?.[guard.name] }))
    .filter((one): one is SoakHalt => one.track !== undefined && guardHalts(one.guard, one.track.status));
  const nextDueInMs = Math.min(...watched.map(({ cluster, guard }) => (tracks[cluster]?.[guard.name]?.at ?? now) + guard.intervalMs - now));
  return { halting, nextDueInMs: Math.max(0, nextDueInMs) };
}

/**
 * Why the soak stopped, one clause per halting guard (mrkdwn):
 * `guard "dev-b available" of *dev-b* breached since 14:03:07 UTC: 0.5 {cluster="dev-b"} (breached when &lt; 1)`.
 */
export function soakHaltClauses(halting: SoakHalt[]): string[] {
  return halting.map(({ cluster, guard, track }) => {
    const since = formatUtcTime(track.troubleSince ?? track.since);
    const what = track.status === 'breached' ? `breached since ${since}: ${valueText(guard, track)}` : `could not be evaluated since ${since}: ${escapeMrkdwn(track.reason ?? 'no reading')} (onMissingData: halt)`;
    return `guard "${escapeMrkdwn(guard.name)}" of *${escapeMrkdwn(cluster)}* ${what}`;
  });
}
