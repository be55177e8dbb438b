import { createHash } from 'node:crypto';
import type { UpgradePlan } from '../../ports/upgrade-plan.js';

/**
 * A stable hash of what a plan would do (route, steps and their actions; not when it was read or the findings'
 * wording), so a rehearsal and a real start of the same plan are recognised as such.
 */
export function planHash(plan: UpgradePlan): string {
  const steps = plan.hops.flatMap((hop) => hop.steps.map((s) => ({ kind: s.kind, resource: s.resource, from: s.from, to: s.to, actions: (s.actions ?? []).map((a) => [a.resource, a.action, a.from, a.to]) })));
  return createHash('sha256').update(JSON.stringify({ cluster: plan.cluster, from: plan.from, to: plan.to, steps })).digest('hex').slice(0, 16);
}

/** Why a real start may not go ahead under `requireRehearsal`, or undefined when a fitting rehearsal exists. */
export function rehearsalProblem(
  cluster: string,
  to: string,
  plan: UpgradePlan,
  last: { planHash: string; state: string; at: number } | undefined,
  maxAgeHours: number,
  now: number,
): string | undefined {
  const run = `\`/eks-upgrade rehearse ${cluster} --to ${to}\` (or \`npx eks-upgrade rehearse ${cluster} --to ${to}\`)`;
  const rule = `clusters.yaml requires a successful rehearsal of the same plan within ${maxAgeHours}h before ${cluster} is upgraded`;
  if (!last) return `${rule}, and none to ${to} is on record: run ${run} first.`;
  if (last.state !== 'succeeded') return `${rule}; the last rehearsal to ${to} ended ${last.state}: fix what it reported, then run ${run} again.`;
  if (now - last.at > maxAgeHours * 3_600_000) return `${rule}; the last one is ${Math.floor((now - last.at) / 3_600_000)}h old: run ${run} again.`;
  if (last.planHash !== planHash(plan)) return `${rule}; the cluster's plan has changed since the last rehearsal (plan ${planHash(plan)}, rehearsed ${last.planHash}): run ${run} again.`;
  return undefined;
}
