import type { Insight, InsightSummary } from '@aws-sdk/client-eks';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { blockingFindings, formatFinding, type PreflightFinding } from '../../src/planning/checks/preflight-checks.js';
import { formatUtc } from '../../src/planning/rollback-preflight.js';
import { resourceFromUri } from '../../src/planning/checks/insight-checks.js';
import { hopPlanLines } from '../../src/report/plan-vs-job.js';
import { readRollback } from '../../src/cluster-reader/rollback-reads.js';
import { listFreshInsights } from '../../src/cluster-reader/refresh-insights.js';
import { DEFAULT_CHECK_SETTINGS } from '../../src/config/clusters-config.js';
import type { GateSpec } from '../engine/gate-step.js';
import { StepFailure, type Step, type StepContext } from '../engine/step-context.js';
import { mention } from '../../src/report/format-text.js';
import { acts, completed, execute, preview, halted } from '../engine/execute-commands.js';

/**
 * The two steps a rollback job (issue 10) runs differently from an upgrade:
 * - its preflight: the RBK checks (window, in place, one minor, ACTIVE and nothing in flight, extended support).
 *   Those are EKS's own refusals and stop the job. Rollback-readiness insights (RBK006) are listed but do not stop
 *   it here: right after an upgrade they report the kubelets the node steps are about to bring back;
 * - its gate, after the data plane is back: the insights are refreshed and read again, and ERROR ones — which make EKS refuse
 *   the rollback — open a Force / Abort card (Force takes a reason, recorded; the control-plane step then sends
 *   `force: true`); otherwise an ordinary Continue / Abort card.
 */
export const rollbackPreflightStep: Step = async (ctx) => {
  const { data, step } = ctx;
  const sources = { eks: () => ctx.eks, ssm: () => ctx.ssm, ec2: () => ctx.ec2, autoScaling: () => ctx.autoScaling, kube: () => ctx.kube(), clock: ctx.clock };
  const reading = await readRollback(sources, { ...ctx.clusterConfig, name: data.cluster, region: data.region, roleArn: data.roleArn }, { policy: policyFromConfig(ctx.clusterConfig), target: step.to });
  // Insights are re-checked at the gate, once the node steps have run.
  const stopping = reading.preflight.findings.filter((finding) => !finding.forceable);
  const findings = reading.preflight.findings;
  if (findings.length > 0) {
    await ctx.emit('findings', {
      kind: 'note',
      at: ctx.clock.now(),
      level: findings.some((finding) => finding.severity !== 'info') ? 'warning' : 'info',
      text: [
        `Rollback preflight for ${step.from} → ${step.to}${reading.preflight.window ? ` (EKS accepts the rollback until ${formatUtc(reading.preflight.window.until)})` : ''}:`,
        ...findings.map((finding) => `• ${formatFinding(finding)}`),
        ...(findings.some((finding) => finding.code === 'RBK006') ? ['Rollback-readiness insights are read again before the control plane: the node and add-on steps clear the kubelet and add-on ones; what is left can be forced there.'] : []),
      ].join('\n'),
    });
  }
  const blocking = blockingFindings(stopping);
  if (blocking.length === 0) {
    const until = reading.preflight.window ? `; window open until ${formatUtc(reading.preflight.window.until)}` : '';
    return completed(ctx, `no blocking findings${until}`);
  }
  const dry = preview(ctx, [{ kind: 'stop-at-findings', findings: blocking.map((finding) => `${finding.code} ${finding.title}`) }]);
  if (dry) return dry;
  throw new StepFailure(
    `Rollback preflight of ${data.cluster} ${step.from} → ${step.to} found ${blocking.length} blocking problem(s): ${blocking.map((finding) => `${finding.code} ${finding.title}`).join('; ')}`,
    { remedy: blocking[0].remedy, code: blocking[0].code },
  );
};

/**
 * The cluster's non-passing ROLLBACK_READINESS insights after the node and add-on steps, with the resources they
 * name. EKS rescans about daily: the insights listed now still describe the kubelets as they were before those
 * steps, so a refresh is asked for and waited for (within checks.insightsRefreshWaitSeconds) first. A refresh that
 * cannot be had leaves the older verdicts, which can only make the card ask for Force when it need not.
 */
async function rollbackInsightFindings(ctx: StepContext): Promise<PreflightFinding[]> {
  const waitMs = (ctx.clusterConfig.checks ?? DEFAULT_CHECK_SETTINGS).insightsRefreshWaitSeconds * 1000;
  const { summaries: all } = await listFreshInsights(ctx.eks, ctx.data.cluster, ctx.clock, { maxAgeMs: -1, waitMs });
  const summaries: InsightSummary[] = all.filter((summary) => summary.category === 'ROLLBACK_READINESS');
  const failing = summaries.filter((summary) => summary.category === 'ROLLBACK_READINESS' && summary.insightStatus?.status !== 'PASSING');
  return Promise.all(
    failing.map(async (summary): Promise<PreflightFinding> => {
      let detail: Insight | undefined;
      try {
        detail = summary.id ? await ctx.eks.describeInsight(ctx.data.cluster, summary.id) : undefined;
      } catch (error) {
        ctx.logger.warn({ err: error, insight: summary.id }, 'DescribeInsight failed; the gate names the insight without its resources');
      }
      const status = detail?.insightStatus?.status ?? summary.insightStatus?.status ?? 'UNKNOWN';
      const resources = (detail?.resources ?? [])
        .filter((resource) => resource.insightStatus?.status !== 'PASSING')
        .map((resource) => (resource.kubernetesResourceUri ? resourceFromUri(resource.kubernetesResourceUri) : (resource.arn ?? '')))
        .filter(Boolean);
      const reason = detail?.insightStatus?.reason ?? summary.insightStatus?.reason;
      // EKS refuses the rollback on ERROR and on UNKNOWN readiness insights alike (unless forced).
      const severity = status === 'ERROR' || status === 'UNKNOWN' ? 'error' : status === 'WARNING' ? 'warning' : 'info';
      return {
        code: 'RBK006',
        severity,
        title: `Rollback-readiness insight "${summary.name ?? summary.id}" is ${status}${reason ? `: ${reason}` : ''}`,
        resources: [...resources, `insight/${summary.id}`],
        remedy: detail?.recommendation ?? `fix what it names (aws eks describe-insight --cluster-name ${ctx.data.cluster} --id ${summary.id})`,
        forceable: severity === 'error',
      };
    }),
  );
}

export const rollbackGateStep: Step = async (ctx) => {
  const { data, step } = ctx;
  const saved = ctx.stepState<{ blocking?: PreflightFinding[] }>();
  // Decided once and saved: a re-run after a crash shows the same card and honours an answer given meanwhile.
  // (A dry run does not refresh the insights: that asks EKS for a rescan, and the gate says it would.)
  let blocking = saved.blocking;
  if (!blocking && acts(ctx)) {
    blocking = blockingFindings(await rollbackInsightFindings(ctx));
    await ctx.saveStepState({ blocking });
  }
  const plan = hopPlanLines(data.steps, step.hop);
  const spec: GateSpec =
    blocking && blocking.length > 0
      ? {
          gateId: `h${step.hop}-control-plane`,
          title: `EKS reports ${blocking.length} rollback-blocking insight(s) for ${data.cluster}. Force the control-plane rollback to ${step.to} past them?`,
          details: [
            ...blocking.map(formatFinding),
            'EKS refuses the rollback while these are ERROR; Force sends it with `force: true` (your reason is recorded). Abort leaves the control plane at ' + `${step.from}.`,
          ],
          actions: ['force', 'abort'],
        }
      : {
          gateId: `h${step.hop}-control-plane`,
          title: `Roll the control plane of ${data.cluster} back to ${step.to}?`,
          details: [
            `The data plane is back at ${step.to}; ${data.cluster}'s control plane goes from ${step.from} to ${step.to} (a VersionRollback, timeout ${data.rollback?.timeoutMinutes ?? 720} minutes).`,
            'AWS cannot pause it once it has started.',
            ...(plan.length > 0 ? ['The approved rollback plan:', ...plan] : []),
          ],
          actions: ['continue', 'abort'],
        };
  const outcome = await execute(ctx, { kind: 'ask-gate', gate: spec, before: 're-read the rollback-readiness insights' });
  if (outcome.kind !== 'answered') return halted(outcome);
  if (outcome.action === 'force') {
    await ctx.saveStepState({ forced: { by: outcome.by, reason: outcome.reason, codes: (blocking ?? []).map((finding) => finding.code) } });
    return { outcome: 'done', summary: `${blocking?.length ?? 0} rollback-blocking insight(s) forced by ${mention(outcome.by)}: ${outcome.reason ?? 'no reason given'}` };
  }
  return { outcome: 'done', summary: `approved by ${mention(outcome.by)}` };
};
