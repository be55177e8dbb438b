/**
 * The part of a gate click that does not depend on Bolt: which gate the button belongs to (its value, contract
 * with the gate card renderer: JSON {jobId, gateId, revision}), whether the job still exists, whether this person
 * may answer it, and what to tell them about the engine's answer.
 */

import { z } from 'zod';
import type { BotDeps } from '../../ports/bot-deps.js';
import { findCluster, type ClusterConfig } from '../../config/clusters-config.js';
import type { GateAction } from '../../ports/timeline-event.js';
import type { GateAnswerResult, JobSummary } from '../../ports/upgrade-control.js';
import { authorizeGate } from '../../domain/authorize.js';
import { formatUtcTime, mention } from '../../report/format-text.js';

export interface GateRef {
  jobId: string;
  gateId: string;
  revision: number;
}

const gateRefSchema = z.object({ jobId: z.string().min(1), gateId: z.string().min(1), revision: z.number().int().nonnegative() });

export function parseGateRef(value: string | undefined): GateRef | undefined {
  if (!value) return undefined;
  try {
    const parsed = gateRefSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export type GateClickCheck =
  | { ok: true; job: JobSummary; cluster: ClusterConfig }
  | { ok: false; reply: string; refused: boolean };

/** Loads the job and checks the clicker may answer its gate with `action`. */
export async function checkGateClick(deps: BotDeps, ref: GateRef, userId: string, action: GateAction): Promise<GateClickCheck> {
  const job = await deps.control.getJob(ref.jobId);
  if (!job) return { ok: false, reply: 'This upgrade job no longer exists, so there is nothing to answer.', refused: false };
  const cluster = findCluster(deps.config, job.cluster);
  if (!cluster) {
    return { ok: false, reply: `${job.cluster} is no longer in clusters.yaml, so nobody may answer its gates from Slack.`, refused: true };
  }
  const decision = await authorizeGate(deps, cluster, job, userId, action);
  if (!decision.allowed) return { ok: false, reply: decision.reason, refused: true };
  return { ok: true, job, cluster };
}

const ANSWER_VERB: Record<GateAction, string> = {
  continue: 'approved',
  abort: 'aborted',
  force: 'forced',
  remedy: 'answered with the remedy',
};

/** What the clicker is told about the engine's answer; undefined when the card itself will show it (accepted). */
export function gateAnswerReply(result: GateAnswerResult): string | undefined {
  switch (result.outcome) {
    case 'accepted':
      return undefined;
    case 'already-answered':
      return result.action === 'timeout'
        ? `This gate already timed out at ${formatUtcTime(result.at)}; nothing was changed.`
        : `Already ${ANSWER_VERB[result.action]} by ${mention(result.by)} at ${formatUtcTime(result.at)}; nothing was changed.`;
    case 'stale':
      return 'This card is out of date: the gate has moved on or was re-opened. Use the latest card in the thread; nothing was changed.';
    case 'unknown-job':
      return 'This upgrade job no longer exists, so there is nothing to answer.';
  }
}
