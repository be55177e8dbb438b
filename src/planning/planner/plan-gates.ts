import { GATES_ON, type GateSwitches } from '../../config/clusters-config.js';
import type { ConditionalGate, PlanStep, StepKind } from '../../ports/upgrade-plan.js';
import type { PlanPolicy } from '../plan-policy.js';

/**
 * The gates of a plan, as the job asks them (issue 23). A data-plane line's `gate` is asked before the job acts on
 * it — the question rides on the line's first action, so the job's step asks exactly the plan's words, in the plan's
 * order — unless clusters.yaml turns that kind's gate off (`gates:`), which the line then says instead. The gates
 * the job opens only when something blocks are listed apart on the line (`conditionalGates`, "only if …"), with the
 * questions the steps ask then. Pure.
 */
export const GATE_SWITCH: Partial<Record<StepKind, keyof GateSwitches>> = {
  gate: 'controlPlane',
  'managed-nodegroups': 'nodegroups',
  karpenter: 'karpenter',
  'self-managed': 'selfManaged',
  fargate: 'fargate',
};

export function gatesOf(policy: PlanPolicy): GateSwitches {
  return policy.gates ?? GATES_ON;
}

/** "No approval asked first: clusters.yaml sets gates.nodegroups to false." */
export function gateOffText(kind: StepKind): string {
  return `No approval asked first: clusters.yaml sets gates.${GATE_SWITCH[kind]} to false.`;
}

/** The questions the steps ask when a drain or an AMI blocks them (shared with jobs/, so the words match). */
export const blockedGateQuestion = {
  nodegroupDrain: (name: string) => `Node group ${name} could not drain its nodes. Force the update, or abort?`,
  customAmi: (name: string) => `Node group ${name} is pinned to a custom AMI. Skip it, or abort?`,
  blueGreenDrain: (name: string) => `Deleting ${name} is blocked: pods cannot be evicted. Force, keep waiting, or abort?`,
  selfManagedDrain: (group: string) => `Self-managed group ${group} could not drain a node. Force the drain, or abort?`,
  selfManagedAmi: (group: string, to: string) => `Self-managed group ${group} has no ${to} AMI source. Skip it, or abort?`,
  addon: (name: string, version: string) => `Updating add-on ${name} to ${version} failed. Force past it, or abort?`,
  preflight: (cluster: string, to: string) => `Preflight for ${cluster} → ${to} found blocking problems. Force past them?`,
};

const PDB_BLOCKS = 'a PodDisruptionBudget (or a pod that cannot move) blocks the drain';

function conditionalGatesOf(step: PlanStep, cluster: string): ConditionalGate[] {
  const gates: ConditionalGate[] = [];
  for (const action of step.actions) {
    const name = action.resource.slice(action.resource.indexOf('/') + 1);
    switch (action.action) {
      case 'update-in-place':
      case 'roll-launch-template':
        gates.push({ when: PDB_BLOCKS, question: blockedGateQuestion.nodegroupDrain(name) });
        break;
      case 'custom-ami-gate':
        gates.push({ when: `clusters.yaml still names no launch template version or AMI source for ${name} when the step reaches it`, question: blockedGateQuestion.customAmi(name) });
        break;
      case 'blue-green':
        gates.push({ when: `pods on ${name} cannot be evicted while EKS deletes it`, question: blockedGateQuestion.blueGreenDrain(name) });
        break;
      case 'roll-self-managed': {
        const group = step.resource?.slice(step.resource.indexOf('/') + 1) ?? name;
        if (!gates.length) {
          gates.push({ when: PDB_BLOCKS, question: blockedGateQuestion.selfManagedDrain(group) });
          gates.push({ when: `no ${action.to} AMI can be found for ${group}`, question: blockedGateQuestion.selfManagedAmi(group, action.to ?? '') });
        }
        break;
      }
      case 'update-addon':
        gates.push({ when: 'the update fails', question: blockedGateQuestion.addon(name, action.to ?? `the default for ${step.to}`) });
        break;
      default:
        break;
    }
  }
  if (step.kind === 'preflight') gates.push({ when: 'preflight finds blocking problems an approver may force', question: blockedGateQuestion.preflight(cluster, step.to ?? '') });
  return gates;
}

/**
 * One plan line with its gates settled: the always-asked question on its first action (or, with the kind's gate off,
 * none and a sentence saying so), and the conditional ones listed apart.
 */
export function withGates(step: PlanStep, policy: PlanPolicy, cluster: string): PlanStep {
  const conditional = conditionalGatesOf(step, cluster);
  const out: PlanStep = { ...step, ...(conditional.length ? { conditionalGates: conditional } : {}) };
  if (!step.gate) return out;
  const key = GATE_SWITCH[step.kind];
  if (key && !gatesOf(policy)[key]) {
    const { gate: _off, ...rest } = out;
    return { ...rest, gateOff: gateOffText(step.kind) };
  }
  if (step.kind === 'gate') return out;
  const [first, ...others] = step.actions;
  return first ? { ...out, actions: [{ ...first, gate: step.gate }, ...others] } : out;
}
