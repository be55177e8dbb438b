import { describeTargetAmi, findAmi } from '../deciders/ami-parameters.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { driftBudget } from '../checks/karpenter/karpenter-checks.js';
import type { DataPlaneUnit } from './data-plane-units.js';
import { plural } from '../../ports/finding.js';
import type { PlanPolicy } from '../plan-policy.js';
import { budgetParallelism, driftMinutes } from './step-estimates.js';
import type { PlanStep } from '../../ports/upgrade-plan.js';
import type { Direction } from './direction.js';

/**
 * The plan lines of one EC2NodeClass (with the NodePools that use it) in one hop, decided by the same decider the
 * Karpenter step runs (decide-ami-action.ts, through `unit.amiAction`): a class whose AMI cannot be decided is left to
 * a person; a class on an alias follows it (an upgrade: Karpenter drifts by itself, after a budget hold for an alias
 * that follows the cluster version) or, in a rollback, is pinned to the alias's older AMI before the control plane
 * goes back and the alias put back after it; a pinned class is pointed at the target AMI (a rollback: back at the
 * terms the upgrade job recorded). Every line's action carries the alias, pools and AMI id it names.
 */
export function karpenterLines(snapshot: ClusterSnapshot, unit: DataPlaneUnit, to: string, policy: PlanPolicy, direction: Direction): PlanStep[] {
  const from = unit.minor;
  const pools = unit.nodePools ?? [];
  const poolNames = pools.map((p) => p.metadata.name);
  const poolList = poolNames.join(', ') || '(none)';
  const budget = policy.upgradeBudget;
  const budgets = pools.map((p) => `${p.metadata.name}: ${driftBudget(p).nodes.map((n) => `"${n}"`).join(', ')}`).join('; ');
  const parallel = budgetParallelism(budget, unit.nodes);
  const budgetCommands = poolNames.map((pool) => `kubectl patch nodepool ${pool} --type merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"${budget}"}]}}}'`);
  const common = { phase: 'data-plane' as const, resource: unit.ref, from, to, kind: 'karpenter' as const, strategy: 'drift' as const, estimateMinutes: driftMinutes(unit.nodes, budget) };
  const decision = unit.amiAction?.(to);
  const resource = `ec2nodeclass/${unit.name}`;
  if (!decision || decision.kind === 'manual') {
    const reason = decision?.reason ?? `EC2NodeClass ${unit.name} could not be read`;
    return [
      {
        ...common,
        strategy: 'manual',
        manual: true,
        title: `EC2NodeClass ${unit.name}: point it at a ${to} AMI yourself, then Karpenter drifts NodePool ${poolList}`,
        details: [`${reason}.`, 'The job reports the class and leaves its AMI alone.'],
        commands: ['kubectl get nodeclaims -w'],
        actions: [{ resource, action: 'karpenter-manual', from, to, reason, pools: poolNames }],
      },
    ];
  }
  if (decision.kind === 'follows-version' || decision.kind === 'pinned-alias') {
    const alias = decision.alias;
    if (direction.name === 'rollback') return [pinAliasBack({ ...common, nodeClass: unit.name, alias, pools: poolNames, to, budget, budgets, budgetCommands })];
    const follows = decision.kind === 'follows-version';
    const reason = follows
      ? `alias ${alias} follows the control plane: Karpenter finds the ${to} AMI by itself`
      : `alias ${alias} pins release ${decision.release}: the job checks that it was published for ${to}, else points the class at the newest ${to} release`;
    const lines: PlanStep[] = [
      {
        ...common,
        title: `Follow the drift of NodePool ${poolList} (alias ${alias}) to ${to} at nodes: "${budget}"`,
        details: [
          follows
            ? `The alias follows the control plane: Karpenter finds the ${to} AMI and drifts ${plural(unit.nodes, 'node')} by itself, ${parallel} at a time.`
            : `${reason}; ${plural(unit.nodes, 'node')} drift ${parallel} at a time.`,
          `Budgets now: ${budgets || 'none'}; restored after the drift.`,
        ],
        commands: [...budgetCommands, 'kubectl get nodeclaims -w'],
        actions: [{ resource, action: follows ? 'follow-alias' : 'pinned-alias', from, to, reason, alias, pools: poolNames }],
      },
    ];
    if (follows && poolNames.length > 0) {
      // A rollback's order has no karpenter-budget kind: build-plan.ts leaves this line out there.
      lines.unshift({
        phase: 'preflight',
        resource: unit.ref,
        from,
        to,
        kind: 'karpenter-budget',
        title: `Set the upgrade budget nodes: "${budget}" on NodePool ${poolList} before the control plane moves`,
        estimateMinutes: 0,
        details: [`Their EC2NodeClass ${unit.name} follows the cluster version, so they start drifting the moment the control plane moves. Budgets now: ${budgets}.`],
        commands: budgetCommands,
        actions: poolNames.map((pool) => ({ resource: `nodepool/${pool}`, action: 'hold-budget' as const, to: budget, reason: `EC2NodeClass ${unit.name} follows the cluster version` })),
      });
    }
    return lines;
  }
  const family = decision.family;
  const arch = decision.lookups[0]?.arch ?? unit.ami?.arch ?? 'x86_64';
  const lookup = findAmi(snapshot, to, family, arch);
  const target = describeTargetAmi(lookup, to, family, arch);
  const terms = (unit.nodeClass?.spec?.amiSelectorTerms ?? []) as Array<Record<string, unknown>>;
  const selected = terms.map((term) => Object.entries(term).map(([key, value]) => `${key} ${String(value)}`).join(', ')).join('; ') || 'an AMI';
  const amiText = lookup?.imageId ?? `the ${to} AMI`;
  return [
    {
      ...common,
      title: `Point EC2NodeClass ${unit.name} ${direction.name === 'rollback' ? 'back at' : 'at'} ${amiText} and drift NodePool ${poolList} at nodes: "${budget}"`,
      gate: `Start replacing ${plural(unit.nodes, 'Karpenter node')} of ${poolNames.join(', ') || unit.name} (${parallel} at a time)?`,
      details: [
        direction.name === 'rollback'
          ? `amiSelectorTerms go back to what the upgrade job recorded before it changed them; only when nothing was recorded, to the ${to} AMI from SSM.`
          : `amiSelectorTerms select ${selected}; the job replaces them with the ${to} AMI id: ${target}.`,
        `Budgets now: ${budgets || 'none'}; set to nodes: "${budget}" for the drift, restored afterwards.`,
      ],
      commands: [
        ...budgetCommands,
        `kubectl patch ec2nodeclass ${unit.name} --type merge -p '{"spec":{"amiSelectorTerms":[{"id":"${lookup?.imageId ?? `<${to} AMI>`}"}]}}'`,
        'kubectl get nodeclaims -w',
      ],
      actions: [{ resource, action: 'pin-ami', from, to, reason: `amiSelectorTerms select ${selected}: pointed at the ${to} ${family} AMI from SSM ${decision.lookups.map((l) => l.parameter).join(', ')}`, pools: poolNames, ...(lookup?.imageId ? { amiId: lookup.imageId } : {}) }],
    },
  ];
}

type Common = Omit<PlanStep, 'title' | 'details' | 'commands' | 'actions'>;

/** The rollback line of a class on an alias: pinned to N-1 for the node drift, the alias back after the control plane. */
function pinAliasBack(line: Common & { nodeClass: string; alias: string; pools: string[]; to: string; budget: string; budgets: string; budgetCommands: string[] }): PlanStep {
  const { nodeClass, alias, pools, to, budget, budgets, budgetCommands, ...common } = line;
  return {
    ...common,
    to,
    title: `Pin EC2NodeClass ${nodeClass} (alias ${alias}) to the ${to} AMI and drift NodePool ${pools.join(', ') || '(none)'} back at nodes: "${budget}"; the alias goes back on after the control plane`,
    details: [
      `Kubelets may never be newer than the API server, so its nodes must be at ${to} before the control plane goes back; the alias would move them only after it. The job pins the class to the alias's ${to} image from SSM, follows the drift, and puts ${alias} back once the control plane is at ${to} (it then resolves to that same image: nothing drifts).`,
      `Budgets now: ${budgets || 'none'}; restored after the drift.`,
    ],
    commands: [
      ...budgetCommands,
      `kubectl patch ec2nodeclass ${nodeClass} --type merge -p '{"spec":{"amiSelectorTerms":[{"id":"<${to} AMI from SSM>"}]}}'`,
      'kubectl get nodeclaims -w',
      `kubectl patch ec2nodeclass ${nodeClass} --type merge -p '{"spec":{"amiSelectorTerms":[{"alias":"${alias}"}]}}'  # after the control plane`,
    ],
    actions: [{ resource: `ec2nodeclass/${nodeClass}`, action: 'pin-ami', from: common.from, to, reason: `alias ${alias}: pinned to the ${to} AMI from SSM before the control plane goes back, the alias put back after it`, alias, pools }],
  };
}
