import type { KubeObject } from '../../../src/ports/kube-port.js';
import { policyFromConfig } from '../../../src/planning/plan-policy.js';
import { runChecks } from '../../../src/planning/checks/run-checks.js';
import { insightsLine, planContext, type PlanContext } from '../../../src/planning/plan-context.js';
import { preflightReads } from '../../../src/cluster-reader/preflight-reads.js';
import { readWaiversForPlan } from '../../../src/waivers/store/read-waivers.js';
import { collectSnapshot } from '../../../src/cluster-reader/collect-snapshot.js';
import { imageInventory } from '../../../src/planning/deciders/image-inventory.js';
import { blockingFindings, checkHopPreflight, formatFinding, fromPlanFindings, type PreflightFinding } from '../../../src/planning/checks/preflight-checks.js';
import { StepFailure, type Step, type StepContext } from '../../engine/step-context.js';
import { inProgressUpdate, readRecentUpdates } from '../../engine/read-cluster-updates.js';
import { mention } from '../../../src/report/format-text.js';
import { acts, execute, preview, readsEarlierHopsAsDone, halted } from '../../engine/execute-commands.js';

/**
 * Preflight of one hop: the job's own state checks (is the cluster where this hop starts, is an update running —
 * to adopt or to wait for —, is the target offered) and the plan's checks over a fresh snapshot
 * (src/planning/checks/run-checks.ts: skew, add-ons, insights, subnets, node groups, Karpenter, workloads, Fargate).
 * Errors stop the hop; when all of them may be forced (the plan's), a Force / Abort gate lets an approver override
 * them with a reason, which is recorded.
 */
async function planFindings(ctx: StepContext): Promise<{ findings: PreflightFinding[]; context: PlanContext; pods?: KubeObject[] }> {
  const { data, step } = ctx;
  const snapshot = await collectSnapshot(
    { eks: () => ctx.eks, ssm: () => ctx.ssm, ec2: () => ctx.ec2, autoScaling: () => ctx.autoScaling, kube: () => ctx.kube(), clock: ctx.clock },
    { name: data.cluster, region: data.region, roleArn: data.roleArn, targetMinors: [step.to], ...preflightReads(ctx.clusterConfig), askAccess: true },
  );
  const slack = await readWaiversForPlan(ctx.waivers, data.cluster);
  const policy = policyFromConfig(ctx.clusterConfig, slack.waivers, slack.note);
  const pods = snapshot.kube.pods.ok ? snapshot.kube.pods.value : undefined;
  return { findings: fromPlanFindings(runChecks(snapshot, step.to, policy)), context: planContext(snapshot, policy), pods };
}

/**
 * The images running before anything changes (first hop only), for verify's before/after diff: from the pods the
 * plan's snapshot just read, listed again only when that read failed (a cluster's pods are the largest list).
 */
async function recordImages(ctx: StepContext, read: KubeObject[] | undefined): Promise<void> {
  if (!acts(ctx) || ctx.step.hop !== 1 || ctx.stepState().imagesBefore) return;
  try {
    const pods = read ?? (await (await ctx.kube()).list('pods')).items;
    await execute(ctx, { kind: 'save-state', patch: { imagesBefore: imageInventory(pods) } });
  } catch (error) {
    ctx.logger.warn({ err: error }, 'listing pods for the image inventory failed; verify will not diff images');
  }
}

export const preflightStep: Step = async (ctx) => {
  const { data, step, eks } = ctx;
  // In a dry run of a multi-hop upgrade, later hops are checked as if the earlier ones had been done.
  const assumed = readsEarlierHopsAsDone(ctx);
  const cluster = await eks.describeCluster(data.cluster);
  const offered = await eks.describeClusterVersions();
  const updates = assumed ? [] : await readRecentUpdates(eks, data.cluster);
  const state = checkHopPreflight({
    cluster: data.cluster,
    status: assumed ? 'ACTIVE' : (cluster.status ?? 'UNKNOWN'),
    version: assumed ? step.from : (cluster.version ?? ''),
    hopFrom: step.from,
    target: step.to,
    offered,
    inProgress: inProgressUpdate(updates),
  });
  const planned = await planFindings(ctx);
  const findings = [...state, ...planned.findings];
  await recordImages(ctx, planned.pods);
  await report(ctx, findings, planned.context);
  // The summary card lists the waivers that let findings stand (finish-job.ts decisionLines).
  const waived = findings.flatMap((finding) => (finding.waived ? [{ code: finding.code, resource: finding.resources[0] ?? `cluster/${data.cluster}`, by: finding.waived.by, until: finding.waived.until, reason: finding.waived.reason }] : []));
  if (waived.length > 0) await execute(ctx, { kind: 'save-state', patch: { waived } });

  const blocking = blockingFindings(findings);
  const warnings = findings.filter((finding) => finding.severity === 'warning').length;
  if (blocking.length === 0) {
    return { outcome: 'done', summary: `no blocking findings${warnings ? `, ${warnings} warning(s)` : ''}` };
  }
  const dry = preview(ctx, [{ kind: 'stop-at-findings', findings: blocking.map((finding) => `${finding.code} ${finding.title}`) }]);
  if (dry) return dry;
  if (blocking.every((finding) => finding.forceable)) {
    const outcome = await execute(ctx, {
      kind: 'ask-gate',
      gate: {
        gateId: `h${step.hop}-preflight`,
        title: `Preflight for ${data.cluster} → ${step.to} found ${blocking.length} blocking problem(s). Force past them?`,
        // A finding waived from this card (or the plan's) and approved no longer blocks the next start.
        details: [...blocking.map(formatFinding), 'To let a finding stand instead: Waive… below (an approver confirms), then Abort and start again.'],
        problems: blocking.map(formatFinding),
        actions: ['force', 'abort'],
        waivable: blocking.slice(0, 5).map((finding) => ({ cluster: data.cluster, code: finding.code, resource: finding.resources[0] ?? `cluster/${data.cluster}`, title: finding.title.slice(0, 300) })),
      },
    });
    if (outcome.kind !== 'answered') return halted(outcome);
    // The control-plane step passes `force` to UpdateClusterVersion when its hop's preflight was forced (EKS refuses
    // the update on ERROR readiness insights otherwise).
    await ctx.saveStepState({ forced: { by: outcome.by, reason: outcome.reason, codes: blocking.map((finding) => finding.code) } });
    return { outcome: 'done', summary: `${blocking.length} blocking finding(s) forced by ${mention(outcome.by)}: ${outcome.reason ?? 'no reason given'}` };
  }
  const first = blocking.find((finding) => !finding.forceable) ?? blocking[0];
  throw new StepFailure(
    `Preflight of ${data.cluster} ${step.from} → ${step.to} found ${blocking.length} blocking problem(s): ${blocking.map((finding) => `${finding.code} ${finding.title}`).join('; ')}`,
    { remedy: first.remedy, code: first.code },
  );
};

async function report(ctx: StepContext, findings: PreflightFinding[], context: PlanContext): Promise<void> {
  if (findings.length === 0) return;
  const waived = findings.filter((finding) => finding.waived);
  const worst = findings.some((finding) => finding.severity !== 'info') ? 'warning' : 'info';
  const order = { error: 0, warning: 1, info: 2 } as const;
  const sorted = [...findings].sort((a, b) => order[a.severity] - order[b.severity]);
  await ctx.emit('findings', {
    kind: 'note',
    at: ctx.clock.now(),
    level: worst,
    topic: 'findings',
    text: [
      `Preflight findings for ${ctx.step.to} (${insightsLine(context)}${waived.length > 0 ? `; ${waived.length} waived` : ''})${context.waiverNote ? `. ${context.waiverNote}` : ''}:`,
      ...sorted.slice(0, 40).map((finding) => `• ${formatFinding(finding)}`), ...(sorted.length > 40 ? [`• …and ${sorted.length - 40} more (see the plan)`] : [])].join('\n'),
  });
}
