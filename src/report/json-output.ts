import type { UpgradePlan } from '../ports/upgrade-plan.js';
import type { ClusterStatus } from './cluster-status.js';

/**
 * The JSON the CLI prints (`--output json`), documented in docs/commands.md: a plan is
 * `{ cluster, region, from, to, blocking, findings[], hops[] {from, to, steps[]}, … }` and status is
 * `{ clusters[] }`. Keys come in a fixed order so diffs of saved outputs stay readable.
 */
export function planJson(plan: UpgradePlan): Record<string, unknown> {
  return {
    cluster: plan.cluster,
    region: plan.region,
    from: plan.from,
    to: plan.to,
    blocking: plan.blocking,
    generatedAt: plan.generatedAt,
    estimateMinutes: plan.estimateMinutes,
    skewRule: plan.skewRule,
    policySource: plan.policySource,
    insightsAsOf: plan.context?.insightsAsOf ?? null,
    ...(plan.rollback ? { rollback: { until: plan.rollback.until !== undefined ? new Date(plan.rollback.until).toISOString() : null, timeoutMinutes: plan.rollback.timeoutMinutes } } : {}),
    ...(plan.context?.insightsNote ? { insightsNote: plan.context.insightsNote } : {}),
    ...(plan.context?.waiverNote ? { waiverNote: plan.context.waiverNote } : {}),
    findings: plan.findings.map((f) => ({
      code: f.code,
      severity: f.severity,
      title: f.title,
      resources: f.resources,
      remedy: f.remedy,
      ...(f.waived ? { waived: { by: f.waived.by, reason: f.waived.reason, until: f.waived.until } } : {}),
    })),
    hops: plan.hops.map((hop) => ({ from: hop.from, to: hop.to, estimateMinutes: hop.estimateMinutes, steps: hop.steps })),
    incremental: plan.incremental,
  };
}

export function statusJson(statuses: ClusterStatus[], generatedAt: number): Record<string, unknown> {
  return { generatedAt: new Date(generatedAt).toISOString(), clusters: statuses };
}

export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
