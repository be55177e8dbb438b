import { describeError } from '../../engine/classify-error.js';
import { describeImageDiff, diffImages, imageInventory } from '../../../src/planning/deciders/image-inventory.js';
import { checkKubeletSkew, describeKubeletMinors, kubeletMinorOf, nodeVersionsOf, SKEW_RULE_TEXT } from '../../../src/planning/kubelet-skew.js';
import { StepFailure, type Step, type StepContext } from '../../engine/step-context.js';
import { preview } from '../../engine/execute-commands.js';

/**
 * Verify a hop: the control plane is at the target and ACTIVE, every node's kubelet is within the skew policy and,
 * in the managed node groups this hop upgraded, at the target; deployments are available and PDBs allow
 * disruptions. A control plane not at its target, or an upgraded group with nodes behind, fails the job; workload
 * problems are reported as warnings (the upgrade itself is done; people must look at them).
 */
async function checkWorkloads(ctx: StepContext): Promise<string[]> {
  const warnings: string[] = [];
  try {
    const kube = await ctx.kube();
    const deployments = await kube.list('deployments');
    const unavailable = deployments.items.filter((deployment) => {
      const wanted = deployment.spec?.replicas ?? 1;
      return (deployment.status?.availableReplicas ?? 0) < wanted;
    });
    if (unavailable.length > 0) {
      warnings.push(
        `${unavailable.length} deployment(s) not fully available: ${unavailable
          .slice(0, 10)
          .map((d) => `${d.metadata.namespace}/${d.metadata.name} (${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1})`)
          .join(', ')}`,
      );
    }
    const pdbs = await kube.list('poddisruptionbudgets');
    const blocked = pdbs.items.filter((pdb) => (pdb.status?.disruptionsAllowed ?? 1) === 0 && (pdb.status?.expectedPods ?? 0) > 0);
    if (blocked.length > 0) {
      warnings.push(`${blocked.length} PDB(s) allow no disruption now: ${blocked.slice(0, 10).map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(', ')}`);
    }
  } catch (error) {
    warnings.push(`could not check deployments and PDBs: ${describeError(error)}`);
  }
  return warnings;
}

/** On the last hop: the images now against those recorded by the first preflight, posted as a note. */
async function compareImages(ctx: StepContext): Promise<string | undefined> {
  const { data, step } = ctx;
  const before = data.stepState[data.steps.find((s) => s.kind === 'preflight')?.id ?? '']?.imagesBefore as string[] | undefined;
  if (!before || step.hop !== data.hops.length) return undefined;
  try {
    const after = imageInventory((await (await ctx.kube()).list('pods')).items);
    const diff = diffImages(before, after);
    await ctx.emit('images', { kind: 'note', at: ctx.clock.now(), level: 'info', text: describeImageDiff(diff).join('\n') });
    return `images: ${diff.removed.length} gone, ${diff.added.length} new`;
  } catch (error) {
    return `images not compared (${describeError(error)})`;
  }
}

/** Managed node groups this hop upgraded (in place, or the green group of a blue/green), from job.data. */
function upgradedGroups(ctx: StepContext): string[] {
  const state = ctx.data.stepState[`h${ctx.step.hop}-managed-nodegroups`] ?? {};
  return Object.entries(state)
    .filter(([key, value]) => key.startsWith('ng:') && (value as { final?: string }).final === 'updated')
    .map(([key, value]) => ((value as { green?: string }).green ?? key.slice('ng:'.length)));
}

/**
 * A group this job upgraded with nodes still below the target fails the hop: the job must not report the upgrade
 * done (nor move the control plane on to the next minor) while part of the group runs the old kubelet.
 */
function nodesBehind(ctx: StepContext, behind: Array<{ group: string; node: string }>): StepFailure {
  const { data, step } = ctx;
  const groups = [...new Set(behind.map((b) => b.group))];
  return new StepFailure(
    `Verifying ${data.cluster} at ${step.to}: ${behind.length} node(s) of node group(s) this job upgraded are not at ${step.to}: ${behind.slice(0, 10).map((b) => b.node).join(', ')}${behind.length > 10 ? `, and ${behind.length - 10} more` : ''}`,
    {
      remedy:
        `look at them with \`kubectl get nodes -l 'eks.amazonaws.com/nodegroup in (${groups.join(',')})'\`; delete the Node objects whose instances are gone (\`kubectl delete node <name>\`), ` +
        `or, for old instances still running, run \`aws eks update-nodegroup-version --cluster-name ${data.cluster} --nodegroup-name ${groups[0]}\` again. The control plane and add-ons are already at ${step.to}`,
    },
  );
}

/** How long verify follows EKS replacing Auto Mode nodes before it reports the ones left and finishes. */
export const AUTO_MODE_WAIT_MS = 2 * 3_600_000;

export const verifyStep: Step = async (ctx) => {
  const { data, step, eks } = ctx;
  const cluster = await eks.describeCluster(data.cluster);
  const dry = preview(ctx, [{ kind: 'verify-hop', cluster: data.cluster, to: step.to }]);
  if (dry) return dry;
  if (cluster.version !== step.to) {
    throw new StepFailure(`Verifying ${data.cluster}: the control plane is at ${cluster.version}, not ${step.to}`, {
      remedy: 'check the cluster with `aws eks describe-cluster` and its recent updates with `aws eks list-updates`',
    });
  }
  const lines = [`control plane ${cluster.version} (${cluster.platformVersion ?? 'platform version unknown'}), ${cluster.status}`];
  const warnings: string[] = [];
  let behind: Array<{ group: string; node: string }> = [];
  if (cluster.status !== 'ACTIVE') warnings.push(`the cluster is ${cluster.status}, not ACTIVE`);

  try {
    const kube = await ctx.kube();
    const items = (await kube.list('nodes')).items;
    const nodes = nodeVersionsOf(items);
    const skew = checkKubeletSkew(nodes, step.to);
    lines.push(`${nodes.length} node(s), kubelets ${describeKubeletMinors(skew)}`);
    if (skew.tooOld.length || skew.tooNew.length) {
      warnings.push(`${skew.tooOld.length + skew.tooNew.length} node(s) outside the skew policy (${SKEW_RULE_TEXT}): ${[...skew.tooOld, ...skew.tooNew].map((n) => `${n.name} ${n.kubeletVersion}`).join(', ')}`);
    } else {
      lines.push('all within the skew policy');
    }
    // Where this hop upgraded a managed node group, its nodes must be at the target, not merely within skew.
    const groups = upgradedGroups(ctx);
    behind = groups.flatMap((group) =>
      items
        .filter((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'] === group && kubeletMinorOf(n) !== step.to)
        .map((n) => ({ group, node: `${n.metadata.name} (${group}, ${String(n.status?.nodeInfo?.kubeletVersion ?? 'kubelet version unknown')})` })),
    );
    if (groups.length && !behind.length) lines.push(`every node of ${groups.join(', ')} at ${step.to}`);
    // EKS Auto Mode replaces its own nodes after the control plane moves: follow it (issue 10), bounded.
    if (cluster.computeConfig?.enabled) {
      const auto = items.filter((n) => n.metadata.labels?.['eks.amazonaws.com/compute-type'] === 'auto');
      const autoBehind = auto.filter((n) => kubeletMinorOf(n) !== step.to);
      const since = ctx.stepState<{ autoModeSince?: number }>().autoModeSince ?? ctx.clock.now();
      if (autoBehind.length > 0 && ctx.clock.now() - since < AUTO_MODE_WAIT_MS) {
        if (ctx.stepState().autoModeSince === undefined) await ctx.saveStepState({ autoModeSince: since });
        await ctx.setProgress(`EKS is replacing the Auto Mode nodes: ${auto.length - autoBehind.length}/${auto.length} at ${step.to}`);
        return { outcome: 'wait', delayMs: ctx.pollIntervalMs };
      }
      if (autoBehind.length > 0) warnings.push(`${autoBehind.length} Auto Mode node(s) still not at ${step.to} after ${AUTO_MODE_WAIT_MS / 3_600_000} h: ${autoBehind.slice(0, 10).map((n) => n.metadata.name).join(', ')} (EKS replaces them; look for PDBs or do-not-disrupt pods holding them)`);
      else if (auto.length > 0) lines.push(`all ${auto.length} Auto Mode node(s) at ${step.to} (replaced by EKS)`);
    }
  } catch (error) {
    warnings.push(`could not read the nodes: ${describeError(error)}`);
  }
  warnings.push(...(await checkWorkloads(ctx)));
  const images = await compareImages(ctx);
  if (images) lines.push(images);

  if (warnings.length > 0) {
    await ctx.emit('warnings', { kind: 'note', at: ctx.clock.now(), level: 'warning', text: [`Verify ${step.to}:`, ...warnings.map((w) => `• ${w}`)].join('\n') });
  }
  if (behind.length > 0) throw nodesBehind(ctx, behind);
  return { outcome: 'done', summary: `${lines.join('; ')}${warnings.length ? `; ${warnings.length} warning(s)` : ''}` };
};
