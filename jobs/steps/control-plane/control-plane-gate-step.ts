import type { Step } from '../../engine/step-context.js';
import type { GateSpec } from '../../engine/gate-step.js';
import { hopPlanLines } from '../../../src/report/plan-vs-job.js';
import { mention } from '../../../src/report/format-text.js';
import { execute, halted } from '../../engine/execute-commands.js';

function withHeading(heading: string, lines: string[]): string[] {
  return lines.length ? [heading, ...lines] : [];
}

/** The approval before the control-plane upgrade of each hop, listing what the approved plan does in it. */
export const controlPlaneGateStep: Step = async (ctx) => {
  const { data, step } = ctx;
  const spec: GateSpec = {
    gateId: `h${step.hop}-control-plane`,
    title: `Upgrade the control plane of ${data.cluster} to ${step.to}?`,
    details: [
      `${data.cluster} goes from ${step.from} to ${step.to}${data.hops.length > 1 ? ` (hop ${step.hop} of ${data.hops.length})` : ''}.`,
      'The update takes about 10 minutes; AWS cannot pause or stop it once it has started.',
      ...withHeading('The approved plan for this hop:', hopPlanLines(data.steps, step.hop)),
    ],
    actions: ['continue', 'abort'],
  };
  const outcome = await execute(ctx, { kind: 'ask-gate', gate: spec });
  if (outcome.kind !== 'answered') return halted(outcome);
  const verb = outcome.action === 'force' ? 'forced' : 'approved';
  return { outcome: 'done', summary: `${verb} by ${mention(outcome.by)}${outcome.reason ? `: ${outcome.reason}` : ''}` };
};
