import { formatDuration } from '../../../src/report/format-text.js';
import type { DrainRemedy } from '../../../src/planning/workloads/find-drain-blockers.js';
import { NODEGROUP_SETTLE, type SettleResult } from './nodegroup-watch.js';
import type { StepContext } from '../../engine/step-context.js';

/**
 * What the node-group step keeps in job.data per group (in place and blue/green alike), and the warning both paths
 * give when a group's nodes do not all reach the target in time.
 */
export interface NodegroupState {
  final?: 'updated' | 'unchanged' | 'skipped';
  from?: string;
  note?: string;
  attempt?: number;
  force?: boolean;
  failed?: { updateId: string; error: string; remedy: string; details: string[]; fix?: DrainRemedy };
  /** The group's size before the update: the denominator of the progress line. */
  desired?: number;
  /** EKS reported the update Successful; the step now waits for the group's nodes. */
  succeeded?: boolean;
  /** When that wait began (so a re-run keeps the same deadline). */
  settleFrom?: number;
  /** The update rolls the launch template version clusters.yaml names (a custom-AMI group). */
  lt?: boolean;
  [key: string]: unknown;
}

export function nodegroupStateOf(ctx: StepContext, name: string): NodegroupState {
  return { ...((ctx.stepState()[`ng:${name}`] ?? {}) as NodegroupState) };
}

export async function saveNodegroupState(ctx: StepContext, name: string, state: NodegroupState): Promise<void> {
  await ctx.saveStepState({ [`ng:${name}`]: state });
}

/** The warning when a group's nodes did not all reach the target in time; returns the note for the step's line. */
export async function reportUnsettled(ctx: StepContext, group: string, settle: Extract<SettleResult, { settled: false }>): Promise<string> {
  const { laggards } = settle.counts;
  const behind = `${laggards.length} node(s) not at ${ctx.step.to} and Ready`;
  if (settle.why === 'aborted') return `${behind} when the job was aborted`;
  const waited = formatDuration(NODEGROUP_SETTLE.timeoutMs);
  await ctx.emit(`ng:${group}:unsettled`, {
    kind: 'note', at: ctx.clock.now(), level: 'warning',
    text: [
      `Node group ${group}: EKS reports it at ${ctx.step.to}, but ${waited} later ${behind}:`,
      ...laggards.slice(0, 20).map((node) => `• ${node}`),
      `What to do: look at them with \`kubectl get nodes -l eks.amazonaws.com/nodegroup=${group} -o wide\`. A Node whose instance is gone can be deleted (\`kubectl delete node <name>\`); an old instance still running needs \`aws eks update-nodegroup-version --cluster-name ${ctx.data.cluster} --nodegroup-name ${group}\` again. Verify reports these nodes.`,
    ].join('\n'),
  });
  return `${behind} after ${waited}`;
}

