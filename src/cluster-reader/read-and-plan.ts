import type { ClusterConfig } from '../config/clusters-config.js';
import { buildPlan, PlanRequestError } from '../planning/planner/build-plan.js';
import type { ClusterSnapshot } from '../planning/cluster-snapshot.js';
import { policyFromConfig } from '../planning/plan-policy.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import type { Clock } from '../ports/clock.js';
import type { UpgradePlan } from '../ports/upgrade-plan.js';
import type { WaiverStore } from '../waivers/model/waiver-store.js';
import { readWaiversForPlan, type WaiversForPlan } from '../waivers/store/read-waivers.js';
import { withDeadline } from './bounded.js';
import { collectSnapshot, type SnapshotSources } from './collect-snapshot.js';
import { hopsBetweenText, offeredProblem } from './plan-request.js';
import { preflightReads } from './preflight-reads.js';

/**
 * The one way a cluster is read and planned (issue 23): `plan` (Slack and CLI), `start`, a rollout wave, a
 * rehearsal and the digest all read here, so what `plan` prints is what `start` stores and the job runs. The read is
 * a plan's: add-on versions and AMIs for every hop, insights refreshed per `checks:` (waiting half the deadline at
 * most), the opt-in reads, the apiserver asked which of the job's permissions the bot has; then the Slack waivers
 * (or a note saying they could not be read) and clusters.yaml's policy. The planning itself is pure
 * (src/planning/planner/build-plan.ts).
 */
export interface PlanReadRequest {
  name: string;
  region: string;
  roleArn?: string;
  /** The cluster's clusters.yaml entry (absent: a cluster named on the CLI with --region; the defaults apply). */
  config?: ClusterConfig;
  /** The version the cluster is at, when the caller has read it (it names the hops to read for). */
  from?: string;
  /** Target minor; absent: the next minor after the one read. */
  to?: string;
  /** The Slack waivers: a store, or a reader (the CLI opens its own connection). */
  waivers?: WaiverStore | (() => Promise<WaiversForPlan>);
  /** The whole read's deadline. */
  timeoutMs: number;
  /** The clock the deadline runs on (default: the sources' clock; the fleet's reads keep real time). */
  deadlineClock?: Clock;
}

export type PlanReading =
  | { snapshot: ClusterSnapshot; to: string; plan: UpgradePlan }
  /** Read, but not plannable (a target EKS does not offer, a downgrade, a cluster that could not be read). */
  | { snapshot: ClusterSnapshot; to?: string; problem: string };

export async function readAndPlan(sources: SnapshotSources, request: PlanReadRequest): Promise<PlanReading> {
  const { name, region, roleArn, config, timeoutMs } = request;
  const reads = preflightReads(config, timeoutMs / 2);
  const targetMinors = request.from && request.to ? hopsBetweenText(request.from, request.to) : undefined;
  const snapshot = await withDeadline(
    collectSnapshot(sources, { name, region, roleArn, ...(targetMinors ? { targetMinors } : {}), ...reads, askAccess: true }),
    timeoutMs,
    `Reading ${name}`,
    request.deadlineClock ?? sources.clock,
  );
  const current = snapshot.cluster.ok ? snapshot.cluster.value.version : undefined;
  const to = request.to ?? (current ? nextMinorOf(current) : undefined);
  if (!to) return { snapshot, problem: snapshot.cluster.ok ? `${name} reports version "${current}", which is not a Kubernetes minor.` : `cannot plan ${name}: ${snapshot.cluster.error}` };
  const notOffered = offeredProblem(snapshot, to);
  if (notOffered) return { snapshot, to, problem: notOffered };
  const slack = typeof request.waivers === 'function' ? await request.waivers() : await readWaiversForPlan(request.waivers, name);
  try {
    return { snapshot, to, plan: buildPlan(snapshot, to, policyFromConfig(config, slack.waivers, slack.note)) };
  } catch (error) {
    if (error instanceof PlanRequestError) return { snapshot, to, problem: error.message };
    throw error;
  }
}

/** The plan, or a PlanRequestError with the reason it could not be made (for callers that stop there). */
export async function readPlan(sources: SnapshotSources, request: PlanReadRequest): Promise<{ snapshot: ClusterSnapshot; plan: UpgradePlan }> {
  const reading = await readAndPlan(sources, request);
  if ('problem' in reading) throw new PlanRequestError(reading.problem);
  return reading;
}
