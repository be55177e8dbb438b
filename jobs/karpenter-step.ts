import type { KubeObject, KubePort } from '../src/ports/kube-port.js';
import { amiArchOf, amiFamilyOf, amiParameterFor, classifyAmiSelector } from '../src/upgrade/karpenter-ami.js';
import { describeDrift, driftOriginals, driftProgress, type DriftOriginal } from '../src/upgrade/drift-progress.js';
import { StepFailure, type Step, type StepContext, type StepResult } from '../src/upgrade/step-context.js';
import { awaitGate } from './gate-step.js';
import { restorePoolBudgets, setPoolBudgets } from './karpenter-budgets.js';
import { startDriftWatcher } from './drift-watcher.js';

/**
 * Karpenter nodes of one hop, by drift: set the upgrade budget on every NodePool (originals saved first), point
 * each EC2NodeClass pinned to an AMI id at the target's EKS-optimized AMI from SSM (an `@latest` alias already
 * follows the control plane), then follow the replacement through watches until every node runs the target, and
 * restore the budgets. Pause sets the budgets to nodes: "0" at once; Abort restores them.
 */
export const PAUSE_RECHECK_MS = 10 * 60_000;
const STALL_NOTE_MS = 30 * 60_000;

async function listOrNone(kube: KubePort, resource: 'nodepools' | 'ec2nodeclasses'): Promise<KubeObject[] | undefined> {
  try {
    return (await kube.list(resource)).items;
  } catch (error) {
    // No Karpenter CRDs on this cluster.
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

export const karpenterStep: Step = async (ctx) => {
  const { data, step } = ctx;
  const kube = await ctx.kube();
  const pools = await listOrNone(kube, 'nodepools');
  if (!pools || pools.length === 0) return { outcome: 'skipped', summary: 'no Karpenter NodePools' };
  const budget = ctx.clusterConfig.karpenter.upgradeBudget;
  const nodes = (await kube.list('nodes', { labelSelector: 'karpenter.sh/nodepool' })).items;
  const lines: string[] = [];

  if (!data.dryRun) await setPoolBudgets(ctx, kube, pools, budget);
  const classNames = [...new Set(pools.map((pool) => pool.spec?.template?.spec?.nodeClassRef?.name).filter(Boolean))] as string[];
  for (const className of classNames) {
    const result = await pointNodeClass(ctx, kube, className, nodes, lines);
    if (result) return result;
  }
  if (data.dryRun) {
    return { outcome: 'dry-run', summary: [`would set the disruption budget of ${pools.map((p) => p.metadata.name).join(', ')} to nodes: "${budget}"`, ...lines, 'then follow the drift and restore the budgets'].join('; ') };
  }

  const poolNames = new Set(pools.map((pool) => pool.metadata.name));
  let originals = ctx.stepState().originals as DriftOriginal[] | undefined;
  if (!originals) {
    originals = driftOriginals((await kube.list('nodeclaims')).items, nodes, poolNames, step.to);
    await ctx.saveStepState({ originals });
  }
  const followed = await followDrift(ctx, kube, poolNames, originals);
  if (followed.result) return followed.result;
  const restored = await restorePoolBudgets(ctx, kube);
  lines.unshift(`NodeClaims replaced ${originals.length}/${originals.length} in ${[...poolNames].join(', ')}; at most ${followed.maxDisrupting} node(s) disrupted at once`);
  if (restored.length) lines.push(`budgets restored on ${restored.join(', ')}`);
  return { outcome: 'done', summary: lines.join('; ') };
};

async function pointNodeClass(ctx: StepContext, kube: KubePort, className: string, nodes: KubeObject[], lines: string[]): Promise<StepResult | undefined> {
  const { data, step } = ctx;
  const nodeClass = await kube.get('ec2nodeclasses', className);
  if (!nodeClass) throw new StepFailure(`EC2NodeClass ${className}, used by a NodePool, does not exist`, { remedy: 'create it or fix the NodePool nodeClassRef, then start again' });
  const selection = classifyAmiSelector(nodeClass.spec?.amiSelectorTerms);
  if (selection.kind === 'alias' && selection.followsClusterVersion) {
    lines.push(`EC2NodeClass ${className} uses alias ${selection.alias}, which follows the control plane`);
    return undefined;
  }
  if (selection.kind === 'id') {
    const arch = amiArchOf(nodes.find((n) => n.metadata.labels?.['karpenter.k8s.aws/ec2nodeclass'] === className)?.metadata.labels?.['kubernetes.io/arch'] ?? nodes[0]?.metadata.labels?.['kubernetes.io/arch']);
    const parameter = amiParameterFor(amiFamilyOf(nodeClass.spec), step.to, arch);
    const ami = parameter ? await ctx.ssm.getParameter(parameter) : undefined;
    if (!ami) {
      throw new StepFailure(`No ${step.to} AMI for EC2NodeClass ${className} (amiFamily ${nodeClass.spec?.amiFamily ?? 'unknown'}${parameter ? `, SSM parameter ${parameter} not found` : ''})`, {
        remedy: `set amiSelectorTerms of ${className} to a ${step.to} AMI yourself, then start the upgrade again`,
      });
    }
    if (selection.ids.length === 1 && selection.ids[0] === ami) {
      lines.push(`EC2NodeClass ${className} already on ${ami}`);
      return undefined;
    }
    if (data.dryRun) {
      lines.push(`would point EC2NodeClass ${className} from ${selection.ids.join(', ')} to ${ami} (${parameter})`);
      return undefined;
    }
    const key = `class:${className}`;
    if (!ctx.stepState()[key]) await ctx.saveStepState({ [key]: { originalTerms: nodeClass.spec?.amiSelectorTerms, ami } });
    await kube.patch('ec2nodeclasses', className, { spec: { amiSelectorTerms: [{ id: ami }] } }, { type: 'merge' });
    await ctx.emit(`class:${className}:${ami}`, { kind: 'progress', at: ctx.clock.now(), step: step.id, text: `EC2NodeClass ${className}: amiSelectorTerms → ${ami} (${step.to}, from ${parameter}); Karpenter will drift its nodes.` });
    lines.push(`EC2NodeClass ${className} → ${ami}`);
    return undefined;
  }
  const how = selection.kind === 'alias' ? `the pinned alias ${selection.alias}` : selection.description;
  if (data.dryRun) {
    lines.push(`would ask you to point EC2NodeClass ${className} (${how}) at a ${step.to} AMI`);
    return undefined;
  }
  const outcome = await awaitGate(ctx, {
    gateId: `h${step.hop}-nodeclass-${className}`,
    title: `EC2NodeClass ${className} selects its AMI by ${how}. Point it at a ${step.to} AMI, then Continue.`,
    details: [`The bot changes only amiSelectorTerms by id; ${className} needs your change.`, 'Continue follows the drift once the AMI is changed; Abort restores the budgets.'],
    actions: ['continue', 'abort'],
  });
  if (outcome.kind === 'result') {
    if (outcome.result.outcome === 'abort') await restorePoolBudgets(ctx, kube);
    return outcome.result;
  }
  lines.push(`EC2NodeClass ${className} changed by <@${outcome.by}>`);
  return undefined;
}

async function followDrift(ctx: StepContext, kube: KubePort, pools: Set<string>, originals: DriftOriginal[]): Promise<{ result?: StepResult; maxDisrupting: number }> {
  const watcher = await startDriftWatcher(kube, pools, (error) => ctx.logger.warn({ err: error }, 'drift watch error; it reconnects'));
  try {
    let lastReplaced = -1;
    let lastChangeAt = ctx.clock.now();
    let stallNoted = false;
    for (;;) {
      if (watcher.synced()) {
        const progress = driftProgress(originals, watcher.nodeClaims(), watcher.nodes(), pools, ctx.step.to);
        await ctx.setProgress(describeDrift(progress));
        if (progress.replaced !== lastReplaced) {
          lastReplaced = progress.replaced;
          lastChangeAt = ctx.clock.now();
          if (progress.replaced > 0) {
            await ctx.emit(`drift:replaced:${progress.replaced}`, { kind: 'progress', at: ctx.clock.now(), step: ctx.step.id, text: `${describeDrift(progress)}.` });
          }
        }
        for (const blocked of watcher.takeBlockEvents().slice(0, 20)) {
          await ctx.emit(`drift:block:${blocked.key}`, { kind: 'note', at: ctx.clock.now(), level: 'warning', text: blocked.text });
        }
        if (progress.done) return { maxDisrupting: watcher.maxDisrupting() };
        if (!stallNoted && ctx.clock.now() - lastChangeAt > STALL_NOTE_MS) {
          stallNoted = true;
          await ctx.emit(`drift:stalled:${lastReplaced}`, {
            kind: 'note', at: ctx.clock.now(), level: 'warning',
            text: `No NodeClaim replaced for 30 minutes (${describeDrift(progress)}). Nodes below ${ctx.step.to}: ${progress.nodesBelowTarget.slice(0, 10).join(', ')}. Check DisruptionBlocked events and PDBs.`,
          });
        }
      }
      const controls = await ctx.controls();
      if (controls.abort) {
        const restored = await restorePoolBudgets(ctx, kube);
        return { maxDisrupting: watcher.maxDisrupting(), result: { outcome: 'abort', by: controls.abort.by, reason: `<@${controls.abort.by}> aborted during the Karpenter rollout; budgets restored on ${restored.join(', ') || 'no pool'}` } };
      }
      if (controls.paused) return { maxDisrupting: watcher.maxDisrupting(), result: await pauseRollout(ctx, kube, pools, controls.pauseSeq) };
      await ctx.sleep(ctx.pollIntervalMs);
    }
  } finally {
    watcher.stop();
  }
}

/** Pause during drift: budgets to nodes: "0" now (in-flight replacements finish), then park until resumed. */
async function pauseRollout(ctx: StepContext, kube: KubePort, pools: Set<string>, seq: number): Promise<StepResult> {
  const current = (await kube.list('nodepools')).items.filter((pool) => pools.has(pool.metadata.name));
  await setPoolBudgets(ctx, kube, current, '0');
  await ctx.emit(`drift:paused:${seq}`, {
    kind: 'note', at: ctx.clock.now(), level: 'info',
    text: `Paused: Karpenter budgets of ${[...pools].join(', ')} set to nodes: "0"; replacements already in flight finish. Resume sets nodes: "${ctx.clusterConfig.karpenter.upgradeBudget}" again.`,
  });
  return {
    outcome: 'wait',
    delayMs: PAUSE_RECHECK_MS,
    wakeEarly: async () => {
      const controls = await ctx.controls();
      return !controls.paused || !!controls.abort;
    },
  };
}

/** Cleanup when the job is aborted or fails while this step is current: the budgets go back. */
export async function karpenterCleanup(ctx: StepContext): Promise<void> {
  await restorePoolBudgets(ctx);
}


