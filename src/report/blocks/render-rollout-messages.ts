/**
 * The rollout's Slack messages (jobs/rollout/rollout-engine.ts posts them): its parent message with the controls, and the
 * gate card of each wave with Continue / Abort. Pure. A wave of hundreds of clusters does not fit one message
 * (a section holds 3,000 characters; a message about 12,000): the first message carries as much as fits, its
 * buttons and "… N more clusters, in the next messages of this thread", and the follow-ups carry the rest.
 */

import type { KnownBlock } from '@slack/types';
import type { RolloutRequest, RolloutSummary } from '../../ports/rollout-control.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { BLOCK_LIMITS, contextLine, listNames, pagedList, truncate } from './block-kit-limits.js';
import { mention } from '../format-text.js';

export interface RolloutMessages {
  /** The message whose ts the rollout needs (the parent, or the gate card). */
  first: SlackMessage;
  /** Posted after it, in the rollout's thread. */
  followUps: SlackMessage[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const button = (id: string, verb: string, label: string, style?: 'primary' | 'danger') => ({
  type: 'button' as const,
  text: { type: 'plain_text' as const, text: truncate(label, BLOCK_LIMITS.buttonText) },
  action_id: verb === 'continue' ? 'fleet:rollout' : `fleet:rollout-${verb}`,
  value: JSON.stringify({ verb, id }),
  ...(style ? { style } : {}),
});

/** "24 h", "90 min", "2 d". */
export function describeDuration(ms: number): string {
  if (ms % (24 * 3600_000) === 0 && ms > 0) return `${ms / (24 * 3600_000)} d`;
  if (ms % 3600_000 === 0 && ms > 0) return `${ms / 3600_000} h`;
  return `${Math.round(ms / 60_000)} min`;
}

/** The parent: who asked, the waves and their clusters, and Pause / Resume / Abort for the whole rollout. */
export function renderRolloutParent(id: string, request: RolloutRequest): RolloutMessages {
  const total = request.waves.reduce((sum, wave) => sum + wave.clusters.length, 0);
  const heading = `:ocean: *Rollout \`${id}\` to ${request.to}* by ${mention(request.requestedBy)}: ${plural(request.waves.length, 'wave')}, ${plural(total, 'cluster')}, soak ${describeDuration(request.soakMs)}, at most ${request.maxParallel} clusters at once.`;
  // One line per wave, and one per cluster under it: a long wave pages like any list, never cut.
  const lines = request.waves.flatMap((wave, index) => [
    `*${index + 1}. ${wave.globs.join(' ')}* (${plural(wave.clusters.length, 'cluster')})`,
    ...wave.clusters.map((name) => `• ${name}`),
  ]);
  const controls: KnownBlock = {
    type: 'actions',
    block_id: `rollout:${id}:controls`,
    elements: [button(id, 'pause', 'Pause'), button(id, 'resume', 'Resume'), button(id, 'abort', 'Abort rollout')],
  };
  return pagedList({
    heading,
    lines,
    tail: [controls],
    text: `Rollout \`${id}\` to ${request.to} by ${mention(request.requestedBy)}: ${plural(request.waves.length, 'wave')}, ${plural(total, 'cluster')}`,
    label: `Rollout ${id}: its waves`,
    unit: ['line', 'lines'],
  });
}

export interface GatePlanLine {
  cluster: string;
  /** "1.30 → 1.31: 7 steps, 40 min, 0 blocking findings", or why it could not be planned. */
  summary: string;
  planned: boolean;
}

/** The gate of a wave: each cluster's plan, then Continue / Abort — or, when a cluster could not be planned, why not. */
export function renderRolloutGate(rollout: Pick<RolloutSummary, 'id' | 'wave' | 'waves' | 'maxParallel'>, plans: GatePlanLine[]): RolloutMessages {
  const wave = rollout.waves[rollout.wave];
  const number = rollout.wave + 1;
  const heading = `*Wave ${number} of ${rollout.waves.length}* (${wave.globs.join(' ')}): ${plural(wave.clusters.length, 'cluster')}, at most ${rollout.maxParallel} at once`;
  const unplanned = plans.filter((plan) => !plan.planned).map((plan) => plan.cluster);
  const tail: KnownBlock[] =
    unplanned.length > 0
      ? [contextLine(`${listNames(unplanned, { where: 'each says why above' })} could not be planned; Abort, fix it and start a new rollout.`)]
      : [{
          type: 'actions',
          block_id: `rollout:${rollout.id}:${rollout.wave}`,
          elements: [button(rollout.id, 'continue', `Continue: start wave ${number}`, 'primary'), button(rollout.id, 'abort', 'Abort rollout', 'danger')],
        }];
  return pagedList({
    heading,
    lines: plans.map((plan) => `• *${plan.cluster}* ${plan.summary}`),
    tail,
    text: `Wave ${number} of ${rollout.waves.length} is ready: ${listNames(wave.clusters, { where: 'listed below' })}`,
    label: `Wave ${number} plans`,
    unit: ['cluster', 'clusters'],
  });
}
