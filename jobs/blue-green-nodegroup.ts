import type { CreateNodegroupRequest, Nodegroup } from '@aws-sdk/client-eks';
import { describeBlocker } from '../src/upgrade/find-drain-blockers.js';
import { StepFailure, type StepContext, type StepResult } from '../src/upgrade/step-context.js';
import { applyRemedy, inspectDrain, nodegroupNodes } from './drain-inspection.js';
import { awaitGate } from './gate-step.js';
import { nodegroupStateOf, saveNodegroupState, type NodegroupState } from './managed-nodegroups-step.js';

/**
 * A managed node group upgraded blue/green (the workshop's blue-mng → green-mng): create a clone at the target
 * (same labels, taints, subnets, instance types, sizes), wait until it is ACTIVE with its nodes Ready, ask, then
 * delete the blue group and follow its drain. Every phase reads the world first — the green group is found by the
 * name stored in job.data before it was created, the blue group's deletion is seen in its status — so a resumed
 * job neither creates two greens nor deletes twice. A drain blocked by a PDB (EKS reports PodEvictionFailure on the
 * group) stops at a gate with the blocking pods and the safe remedy.
 */
interface BlueGreenState extends NodegroupState {
  green?: string;
  greenReady?: boolean;
  deleteIssued?: boolean;
  remedied?: string[];
}

const isNotFound = (error: unknown) => ['ResourceNotFoundException', 'NotFoundException'].includes((error as Error)?.name);

async function describeOrUndefined(ctx: StepContext, name: string): Promise<Nodegroup | undefined> {
  try {
    return await ctx.eks.describeNodegroup(ctx.data.cluster, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function greenNameFor(blue: string, to: string): string {
  const base = blue.replace(/-?1-\d+$/, '');
  return `${base}-${to.replace('.', '-')}`.slice(0, 63);
}

export function cloneRequest(blue: Nodegroup, green: string, to: string, token: string): CreateNodegroupRequest {
  const custom = blue.amiType === 'CUSTOM';
  return {
    clusterName: blue.clusterName,
    nodegroupName: green,
    version: custom ? undefined : to,
    scalingConfig: blue.scalingConfig,
    subnets: blue.subnets,
    instanceTypes: blue.launchTemplate ? undefined : blue.instanceTypes,
    amiType: custom ? undefined : blue.amiType,
    capacityType: blue.capacityType,
    diskSize: blue.launchTemplate ? undefined : blue.diskSize,
    nodeRole: blue.nodeRole,
    labels: blue.labels,
    taints: blue.taints,
    tags: blue.tags,
    updateConfig: blue.updateConfig,
    launchTemplate: blue.launchTemplate ? { id: blue.launchTemplate.id, version: blue.launchTemplate.version } : undefined,
    clientRequestToken: token,
  };
}

export async function upgradeBlueGreen(ctx: StepContext, blueName: string, lines: string[]): Promise<StepResult | undefined> {
  const { data, step, eks } = ctx;
  const state = nodegroupStateOf(ctx, blueName) as BlueGreenState;
  if (state.final) {
    lines.push(state.note ?? `${blueName}: ${state.final}`);
    return undefined;
  }
  const blue = await describeOrUndefined(ctx, blueName);
  if (blue && blue.version === step.to && !state.green) {
    lines.push(`${blueName}: already at ${step.to}`);
    if (!data.dryRun) await saveNodegroupState(ctx, blueName, { ...state, final: 'unchanged', note: `${blueName}: already at ${step.to}` });
    return undefined;
  }
  const green = state.green ?? greenNameFor(blueName, step.to);
  if (data.dryRun) {
    lines.push(`would create ${green} as a ${step.to} clone of ${blueName}, wait until Ready, ask, then delete ${blueName}`);
    return undefined;
  }
  if (!state.green) {
    state.green = green;
    await saveNodegroupState(ctx, blueName, state);
  }

  // 1. The green clone.
  let greenGroup = await describeOrUndefined(ctx, green);
  if (!greenGroup) {
    if (!blue) throw new StepFailure(`Blue/green upgrade of ${blueName}: both ${blueName} and ${green} are gone`, { remedy: 'check the node groups with `aws eks list-nodegroups`; the workloads may have nowhere to run' });
    try {
      greenGroup = await eks.createNodegroup(cloneRequest(blue, green, step.to, `${data.jobId}-${green}`.slice(0, 64)));
    } catch (error) {
      if ((error as Error).name !== 'ResourceInUseException') throw error;
    }
    await ctx.recordUpdate(`${blueName}:create`, { updateId: green, operation: 'CreateNodegroup', target: `${green} ${step.to}`, at: ctx.clock.now(), adopted: false });
    await ctx.emit(`bg:${blueName}:create`, { kind: 'progress', at: ctx.clock.now(), step: step.id, text: `CreateNodegroup ${green}: a ${step.to} clone of ${blueName} (same labels, taints, subnets, instance types and sizes).` });
  }
  if (!state.greenReady) {
    for (;;) {
      const current = await eks.describeNodegroup(data.cluster, green);
      if (current.status === 'CREATE_FAILED') {
        throw new StepFailure(`Creating node group ${green} failed: ${(current.health?.issues ?? []).map((i) => `${i.code}: ${i.message}`).join('; ') || 'no reason given'}`, { remedy: `fix the cause, delete ${green}, then start the upgrade again` });
      }
      const nodes = await nodegroupNodes(ctx, green).catch(() => []);
      const ready = nodes.filter((n) => (n.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'));
      const wanted = current.scalingConfig?.desiredSize ?? 1;
      await ctx.setProgress(`node group ${green}: ${current.status}, ${ready.length}/${wanted} nodes Ready`);
      if (current.status === 'ACTIVE' && ready.length >= wanted) break;
      await ctx.sleep(ctx.pollIntervalMs);
    }
    state.greenReady = true;
    await saveNodegroupState(ctx, blueName, state);
  }

  // 2. Ask, then delete blue and follow its drain.
  if (blue) {
    const outcome = await awaitGate(ctx, {
      gateId: `h${step.hop}-bg-${blueName}`,
      title: `${green} is Ready at ${step.to}. Delete ${blueName} (its nodes are drained)?`,
      details: [`Pods on ${blueName} move to ${green} as EKS drains ${blueName}; PDBs are respected.`],
      actions: ['continue', 'abort'],
    });
    if (outcome.kind === 'result') return outcome.result;
    if (!state.deleteIssued && blue.status !== 'DELETING') {
      await eks.deleteNodegroup(data.cluster, blueName);
      state.deleteIssued = true;
      await ctx.recordUpdate(`${blueName}:delete`, { updateId: blueName, operation: 'DeleteNodegroup', target: blueName, at: ctx.clock.now(), adopted: false });
      await saveNodegroupState(ctx, blueName, state);
      await ctx.emit(`bg:${blueName}:delete`, { kind: 'progress', at: ctx.clock.now(), step: step.id, text: `DeleteNodegroup ${blueName}: EKS cordons and drains its nodes.` });
    }
    const blocked = await followDeletion(ctx, blueName, state);
    if (blocked) return blocked;
  }
  const landed = await podsOn(ctx, green);
  const note = `${blueName} → ${green} at ${step.to} (blue/green${landed !== undefined ? `; ${landed} pods now on ${green}` : ''})`;
  await saveNodegroupState(ctx, blueName, { ...state, final: 'updated', note });
  lines.push(note);
  return undefined;
}

async function followDeletion(ctx: StepContext, blueName: string, state: BlueGreenState): Promise<StepResult | undefined> {
  for (;;) {
    const blue = await describeOrUndefined(ctx, blueName);
    if (!blue) return undefined;
    const nodes = await nodegroupNodes(ctx, blueName).catch(() => []);
    await ctx.setProgress(`node group ${blueName}: ${blue.status}, ${nodes.length} node(s) left`);
    const evictionIssue = blue.health?.issues?.find((issue) => issue.code === 'PodEvictionFailure');
    if (evictionIssue) {
      const drain = await inspectDrain(ctx, nodes.map((n) => n.metadata.name));
      const fix = drain.remedy && !(state.remedied ?? []).includes(drain.remedy.label) ? drain.remedy : undefined;
      const outcome = await awaitGate(ctx, {
        gateId: `h${ctx.step.hop}-bg-${blueName}-drain`,
        title: `Deleting ${blueName} is blocked: pods cannot be evicted. ${fix ? `${fix.label}?` : 'Keep waiting, or abort?'}`,
        details: [`${evictionIssue.code}: ${evictionIssue.message}`, ...drain.blockers.slice(0, 20).map(describeBlocker)],
        actions: fix ? ['remedy', 'continue', 'abort'] : ['continue', 'abort'],
        remedyLabel: fix?.label,
      });
      if (outcome.kind === 'result') return outcome.result;
      if (outcome.action === 'remedy' && fix) {
        await applyRemedy(ctx, fix);
        state.remedied = [...(state.remedied ?? []), fix.label];
        await saveNodegroupState(ctx, blueName, state);
      }
    }
    await ctx.sleep(ctx.pollIntervalMs);
  }
}

async function podsOn(ctx: StepContext, nodegroup: string): Promise<number | undefined> {
  try {
    const kube = await ctx.kube();
    const nodes = new Set((await nodegroupNodes(ctx, nodegroup)).map((n) => n.metadata.name));
    const pods = (await kube.list('pods')).items;
    return pods.filter((p) => nodes.has(p.spec?.nodeName) && !p.metadata.ownerReferences?.some((r) => r.kind === 'DaemonSet')).length;
  } catch {
    return undefined;
  }
}
