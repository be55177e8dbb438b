import { KubeApiError, type KubeObject, type KubePort } from '../../../src/ports/kube-port.js';
import type { SsmPort } from '../../../src/ports/aws/ssm-port.js';
import { countDrift } from '../../../src/planning/count-drift.js';
import { archesOfNodePool, decideAmiAction, describeTerms, pinnedTerms, termsMatch, termsPinTo, type AmiAction, type SsmLookup } from '../../../src/planning/deciders/decide-ami-action.js';
import type { RecordedKarpenterClasses } from '../../../src/planning/karpenter-originals.js';
import { describeBudgets, originalToRecord } from '../../../src/planning/workloads/disruption-budget.js';
import { poolOfNode } from '../../../src/planning/karpenter-objects.js';
import type { ClassPlan, PoolPlan } from './karpenter-step-state.js';
import type { WorldDecision } from '../../../src/planning/plan-vs-world.js';
import type { ActionKind } from '../../../src/ports/upgrade-plan.js';

/**
 * Reads the NodePools, EC2NodeClasses, NodeClaims and nodes, resolves each class's target images from SSM, and
 * decides which pools the step acts on. Reads only: the caller saves the plan (originals first) before any patch.
 */
export interface KarpenterPlan {
  pools: Record<string, PoolPlan>;
  classes: Record<string, ClassPlan>;
  /** Pools left alone and why, with what the operator must do. */
  reports: string[];
  /** What the step will do, one line per pool (the dry run's report). */
  lines: string[];
  /**
   * Per EC2NodeClass (and per NodePool whose class follows the cluster version, for the budget hold before the
   * control plane) what it needs now, in the planner's words: compared with the approved plan (plan-check.ts).
   */
  decisions: WorldDecision[];
}

const ACTION_OF: Record<AmiAction['kind'], ActionKind> = { pin: 'pin-ami', 'follows-version': 'follow-alias', 'pinned-alias': 'pinned-alias', manual: 'karpenter-manual' };

/** Drops what the step must leave alone (not in the approved plan, or needing another action now). */
export function keepPlanned(plan: KarpenterPlan, act: Set<string>): void {
  for (const [name, pool] of Object.entries(plan.pools)) {
    if (!act.has(`ec2nodeclass/${pool.nodeClass}`)) delete plan.pools[name];
  }
  for (const name of Object.keys(plan.classes)) if (!act.has(`ec2nodeclass/${name}`)) delete plan.classes[name];
}

export type PlanReading = { kind: 'nothing'; summary: string } | { kind: 'plan'; plan: KarpenterPlan };

const classOf = (pool: KubeObject): string => pool.spec?.template?.spec?.nodeClassRef?.name ?? pool.spec?.nodeClassRef?.name ?? 'default';

async function resolveImages(ssm: SsmPort, lookups: SsmLookup[]): Promise<{ ids: string[]; missing: string[] }> {
  const ids: string[] = [];
  const missing: string[] = [];
  for (const lookup of lookups) {
    const id = await ssm.getParameter(lookup.parameter);
    if (id) ids.push(id);
    else missing.push(lookup.parameter);
  }
  return { ids, missing };
}

interface ResolvedClass {
  plan?: ClassPlan;
  targetAmis: string[];
  report?: string;
  describe: string;
}

/** A rollback job's reading (issue 10): what the upgrade it undoes recorded, if anything. */
export interface RollbackReading {
  recorded?: RecordedKarpenterClasses;
}

async function resolveClass(ssm: SsmPort, nodeClass: KubeObject, action: AmiAction, target: string, rollback?: RollbackReading): Promise<ResolvedClass> {
  const name = nodeClass.metadata.name;
  const oldTerms: unknown[] = structuredClone(nodeClass.spec?.amiSelectorTerms ?? []);
  if (action.kind === 'manual') return { targetAmis: [], report: action.reason, describe: 'left alone' };
  const { ids, missing } = await resolveImages(ssm, action.lookups);
  if (rollback) {
    const rolledBack = resolveRollback(name, nodeClass, action, target, ids, missing, rollback);
    if (rolledBack) return rolledBack;
  }
  if (action.kind === 'pinned-alias') {
    if (missing.length === 0) {
      return { plan: { action: 'follows-version', family: action.family, oldTerms }, targetAmis: ids, describe: `alias ${action.alias} (release published for ${target}) follows the cluster version` };
    }
    const latest = (await resolveImages(ssm, action.latest)).ids;
    return {
      targetAmis: [],
      describe: 'left alone',
      report: `EC2NodeClass ${name} pins alias ${action.alias}, a release not published for ${target}, so Karpenter finds no ${target} image for it. What to do: set amiSelectorTerms to [{alias: ${action.alias.split('@')[0]}@latest}]${latest.length ? ` or [${latest.map((id) => `{id: ${id}}`).join(', ')}]` : ''}.`,
    };
  }
  if (missing.length > 0) {
    return { targetAmis: [], describe: 'left alone', report: `EC2NodeClass ${name}: SSM has no ${missing.join(', ')}, so there is no ${action.family} ${target} image to move it to. What to do: check that ${action.family} is published for ${target}, or pin an AMI yourself.` };
  }
  if (action.kind === 'follows-version') {
    return { plan: { action: 'follows-version', family: action.family, oldTerms }, targetAmis: ids, describe: `alias ${action.alias} follows the cluster version (no change; ${ids.join(', ')} after the control-plane upgrade)` };
  }
  const patched = termsPinTo(nodeClass.spec?.amiSelectorTerms, ids);
  const plan: ClassPlan = { action: 'pin', family: action.family, oldTerms, newTerms: pinnedTerms(ids), patched: patched || undefined };
  const from = oldTerms.map((term) => Object.entries(term as object).map(([k, v]) => `${k} ${v}`).join(' ')).join(', ');
  return { plan, targetAmis: ids, describe: patched ? `already pinned to ${ids.join(', ')}` : `amiSelectorTerms ${from} → id ${ids.join(', ')} (${action.family} ${target} from SSM)` };
}

/**
 * A rollback decides differently (issue 10), since the data plane must be at N-1 before the control plane goes back:
 * - a class whose images are pinned goes back to the terms the upgrade job recorded before it changed them; only
 *   when nothing was recorded, to the N-1 AMI from SSM (as an upgrade would pick it);
 * - a class that follows an alias would drift only after the control plane, so it is pinned to the alias's N-1
 *   images from SSM now (its nodes drift back under the budget, before the control plane), and its terms (the alias)
 *   are put back once the control plane is at N-1 (jobs/steps/karpenter/karpenter-alias-restore.ts) — then the alias resolves to
 *   those same images and nothing drifts again.
 * Undefined: decide as an upgrade does (a pinned release published for N-1 only, missing images → report).
 */
function resolveRollback(name: string, nodeClass: KubeObject, action: Exclude<AmiAction, { kind: 'manual' }>, target: string, ids: string[], missing: string[], rollback: RollbackReading): ResolvedClass | undefined {
  const current = nodeClass.spec?.amiSelectorTerms;
  const oldTerms: unknown[] = structuredClone(current ?? []);
  const recorded = rollback.recorded?.classes[name]?.terms;
  if (action.kind === 'follows-version' || action.kind === 'pinned-alias') {
    if (missing.length > 0) return undefined;
    const newTerms = pinnedTerms(ids);
    const restore = recorded ?? (structuredClone(current ?? []) as Array<Record<string, unknown>>);
    const plan: ClassPlan = { action: 'pin', family: action.family, oldTerms, newTerms, source: { kind: 'ssm' }, restoreAfterControlPlane: restore, patched: termsPinTo(current, ids) || undefined };
    return { plan, targetAmis: ids, describe: `alias ${action.alias} pinned to id ${ids.join(', ')} (${action.family} ${target} from SSM) while the control plane goes back, then ${describeTerms(restore)} again` };
  }
  if (!recorded) return undefined;
  const recordedIds = recorded.map((term) => (Object.keys(term).length === 1 && typeof term.id === 'string' ? term.id : undefined));
  // The images the nodes end on: the recorded ids, or (names, SSM parameters) the N-1 images SSM gives.
  const targetAmis = recordedIds.every((id): id is string => id !== undefined) ? recordedIds : ids;
  const plan: ClassPlan = { action: 'pin', family: action.family, oldTerms, newTerms: structuredClone(recorded), source: { kind: 'recorded', jobId: rollback.recorded!.jobId }, patched: termsMatch(current, recorded) || undefined };
  return { plan, targetAmis, describe: `amiSelectorTerms ${describeTerms(current)} → ${describeTerms(recorded)} (as upgrade job ${rollback.recorded!.jobId} recorded them before changing them)` };
}

export async function readKarpenterPlan(input: { kube: KubePort; ssm: SsmPort; target: string; upgradeBudget: string; rollback?: RollbackReading }): Promise<PlanReading> {
  const { kube, ssm, target } = input;
  let nodePools: KubeObject[];
  try {
    nodePools = (await kube.list('nodepools')).items;
  } catch (error) {
    if (error instanceof KubeApiError && error.code === 404) return { kind: 'nothing', summary: 'Karpenter is not installed (no karpenter.sh/v1 NodePool API)' };
    throw error;
  }
  if (nodePools.length === 0) return { kind: 'nothing', summary: 'no Karpenter NodePools' };
  const [nodeClasses, claims, nodes] = await Promise.all([
    kube.list('ec2nodeclasses').then((list) => list.items),
    kube.list('nodeclaims').then((list) => list.items),
    kube.list('nodes', { labelSelector: 'karpenter.sh/nodepool' }).then((list) => list.items),
  ]);

  const poolsByClass = new Map<string, KubeObject[]>();
  for (const pool of nodePools) poolsByClass.set(classOf(pool), [...(poolsByClass.get(classOf(pool)) ?? []), pool]);

  const plan: KarpenterPlan = { pools: {}, classes: {}, reports: [], lines: [], decisions: [] };
  for (const [className, pools] of [...poolsByClass].sort(([a], [b]) => a.localeCompare(b))) {
    const nodeClass = nodeClasses.find((candidate) => candidate.metadata.name === className);
    if (!nodeClass) {
      plan.reports.push(`NodePools ${pools.map((p) => p.metadata.name).join(', ')} reference EC2NodeClass ${className}, which does not exist; Karpenter cannot launch nodes for them. What to do: create it or fix nodeClassRef.`);
      continue;
    }
    const arches = [...new Set(pools.flatMap((pool) => archesOfNodePool(pool, nodes.filter((n) => poolOfNode(n) === pool.metadata.name))))].sort() as Array<'x86_64' | 'arm64'>;
    const decided = decideAmiAction(nodeClass, { target, arches });
    const resolved = await resolveClass(ssm, nodeClass, decided, target, input.rollback);
    // A rollback pins alias classes too (see resolveRollback): the plan says pin-ami for them.
    const kind = input.rollback && resolved.plan?.action === 'pin' ? 'pin-ami' : ACTION_OF[decided.kind];
    const decision: WorldDecision = { resource: `ec2nodeclass/${className}`, action: kind, reason: decided.kind === 'manual' ? decided.reason : resolved.describe };
    plan.decisions.push(decision);
    if (!resolved.plan) {
      plan.reports.push(`${resolved.report} (NodePools ${pools.map((p) => p.metadata.name).join(', ')} are not upgraded by the bot.)`);
      continue;
    }
    let acted = false;
    for (const pool of pools) {
      const name = pool.metadata.name;
      const counts = countDrift({ pool: name, claims, nodes, oldClaims: [], targetAmis: resolved.targetAmis, target, now: 0, readyTimeoutMs: Infinity });
      const classChanges = resolved.plan.action === 'pin' && !resolved.plan.patched;
      if (counts.total === 0 && !classChanges) {
        plan.lines.push(`NodePool ${name}: every NodeClaim already on ${target}; nothing to do`);
        continue;
      }
      acted = true;
      const original = originalToRecord(undefined, pool.spec?.disruption?.budgets);
      plan.pools[name] = { nodeClass: className, targetAmis: resolved.targetAmis, oldClaims: counts.oldClaims, original };
      plan.lines.push(
        `NodePool ${name} (EC2NodeClass ${className}, ${arches.join('/')}): budget ${describeBudgets(original)} → nodes ${input.upgradeBudget} while ${counts.total} NodeClaim(s) are replaced, then back; ${resolved.describe}`,
      );
    }
    if (acted) plan.classes[className] = resolved.plan;
    // A class on an alias whose nodes already drifted did what the plan said: the control plane moved, it followed.
    else if (decision.action !== 'follow-alias') decision.action = 'at-target';
    if (resolved.plan.action === 'follows-version') {
      for (const pool of pools) {
        const held = plan.pools[pool.metadata.name] !== undefined;
        plan.decisions.push({ resource: `nodepool/${pool.metadata.name}`, action: held ? 'hold-budget' : 'at-target', reason: held ? `EC2NodeClass ${className} follows the cluster version` : 'its nodes are on the target already' });
      }
    }
  }
  return { kind: 'plan', plan };
}
