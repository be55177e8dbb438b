import type { InsightSummary } from '@aws-sdk/client-eks';
import { describeError } from '../src/upgrade/classify-error.js';
import { nodeVersionsOf, type NodeVersion } from '../src/upgrade/kubelet-skew.js';
import { blockingFindings, checkHopPreflight, formatFinding, type PreflightFinding } from '../src/upgrade/preflight-checks.js';
import { StepFailure, type Step, type StepContext } from '../src/upgrade/step-context.js';
import { awaitGate } from './gate-step.js';
import { inProgressUpdate, readRecentUpdates } from './read-cluster-updates.js';

/**
 * Preflight of one hop: reads the cluster, the versions EKS offers, updates in progress, the nodes' kubelets and
 * the upgrade insights, then runs the pure checks (src/upgrade/preflight-checks.ts). Errors stop the hop; when all
 * of them may be forced, a Force / Abort gate lets an approver override them with a reason, which is recorded.
 */
async function readNodes(ctx: StepContext): Promise<{ nodes?: NodeVersion[]; error?: string }> {
  try {
    const kube = await ctx.kube();
    const list = await kube.list('nodes');
    return { nodes: nodeVersionsOf(list.items) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

async function readInsights(ctx: StepContext): Promise<InsightSummary[]> {
  try {
    return await ctx.eks.listInsights(ctx.data.cluster, { kubernetesVersions: [ctx.step.to], categories: ['UPGRADE_READINESS'] });
  } catch (error) {
    ctx.logger.warn({ err: error, cluster: ctx.data.cluster }, 'listing upgrade insights failed; preflight goes on without them');
    return [];
  }
}

export const preflightStep: Step = async (ctx) => {
  const { data, step, eks } = ctx;
  // In a dry run of a multi-hop upgrade, later hops are checked as if the earlier ones had been done.
  const assumed = data.dryRun && step.hop > 1;
  const cluster = await eks.describeCluster(data.cluster);
  const offered = await eks.describeClusterVersions();
  const updates = assumed ? [] : await readRecentUpdates(eks, data.cluster);
  const { nodes, error: nodesError } = await readNodes(ctx);
  const insights = await readInsights(ctx);

  const findings = checkHopPreflight({
    cluster: data.cluster,
    status: assumed ? 'ACTIVE' : (cluster.status ?? 'UNKNOWN'),
    version: assumed ? step.from : (cluster.version ?? ''),
    hopFrom: step.from,
    target: step.to,
    offered,
    inProgress: inProgressUpdate(updates),
    nodes,
    nodesError,
    insights,
  });
  await report(ctx, findings);

  const blocking = blockingFindings(findings);
  const warnings = findings.filter((finding) => finding.severity === 'warning').length;
  if (blocking.length === 0) {
    return { outcome: 'done', summary: `no blocking findings${warnings ? `, ${warnings} warning(s)` : ''}` };
  }
  if (data.dryRun) {
    return { outcome: 'dry-run', summary: `would stop here: ${blocking.map((finding) => finding.title).join('; ')}` };
  }
  if (blocking.every((finding) => finding.forceable)) {
    const outcome = await awaitGate(ctx, {
      gateId: `h${step.hop}-preflight`,
      title: `Preflight for ${data.cluster} → ${step.to} found ${blocking.length} blocking problem(s). Force past them?`,
      details: blocking.map(formatFinding),
      actions: ['force', 'abort'],
    });
    if (outcome.kind === 'result') return outcome.result;
    return { outcome: 'done', summary: `${blocking.length} blocking finding(s) forced by <@${outcome.by}>: ${outcome.reason ?? 'no reason given'}` };
  }
  const first = blocking.find((finding) => !finding.forceable) ?? blocking[0];
  throw new StepFailure(
    `Preflight of ${data.cluster} ${step.from} → ${step.to} found ${blocking.length} blocking problem(s): ${blocking.map((finding) => `${finding.code} ${finding.title}`).join('; ')}`,
    { remedy: first.remedy, code: first.code },
  );
};

async function report(ctx: StepContext, findings: PreflightFinding[]): Promise<void> {
  if (findings.length === 0) return;
  const worst = findings.some((finding) => finding.severity !== 'info') ? 'warning' : 'info';
  await ctx.emit('findings', {
    kind: 'note',
    at: ctx.clock.now(),
    level: worst,
    text: [`Preflight findings for ${ctx.step.to}:`, ...findings.map((finding) => `• ${formatFinding(finding)}`)].join('\n'),
  });
}
