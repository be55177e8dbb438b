/**
 * `eks-upgrade plan` in a terminal: a headline that says whether the plan is blocked, the findings (errors first)
 * with resources and fixes, then each hop's numbered steps with gates, manual steps and durations. Pure.
 */

import { describeCounts, unwaivedErrors } from '../ports/finding.js';
import { insightsLine } from '../planning/plan-context.js';
import { formatMinutes, type PlanStep, type UpgradePlan } from '../ports/upgrade-plan.js';
import { wrapText } from './text-table.js';

const WIDTH = 110;

export function stepMarks(step: PlanStep): string {
  return [step.gate ? '[gate]' : '', step.manual ? '[manual]' : '', step.deferrableTo ? `[can wait for ${step.deferrableTo}]` : ''].filter(Boolean).join(' ');
}

export function planHeadline(plan: UpgradePlan): string {
  const impossible = plan.rollback?.impossible;
  if (impossible) return `A rollback of ${plan.cluster} (${plan.region}) from ${plan.from} to ${plan.to} is not possible: ${impossible.reason} (${impossible.code}, which cannot be forced).`;
  const errors = unwaivedErrors(plan.findings).length;
  const verdict = plan.blocking ? `BLOCKED by ${errors} error${errors === 1 ? '' : 's'}` : 'no blocking findings';
  return `${plan.rollback ? 'Rollback plan' : 'Plan'} for ${plan.cluster} (${plan.region}): ${plan.from} → ${plan.to}, ${plan.hops.length} hop${plan.hops.length === 1 ? '' : 's'}, ${formatMinutes(plan.estimateMinutes)} — ${verdict}`;
}

export function renderPlanText(plan: UpgradePlan): string {
  const waived = plan.findings.filter((f) => f.waived).length;
  const lines: string[] = [
    planHeadline(plan),
    `Findings: ${describeCounts(plan.findings)}${waived ? ` (${waived} waived)` : ''}. Strategies from ${plan.policySource}. Skew rule: ${plan.skewRule}.`,
    `Upgrade ${insightsLine(plan.context ?? {})}.${plan.context?.waiverNote ? ` ${plan.context.waiverNote}` : ''}`,
    ...(plan.guards?.length ? [`Guards watching every step that acts (a breach stops the upgrade): ${plan.guards.join('; ')}.`] : []),
    '',
  ];
  lines.push('FINDINGS');
  if (plan.findings.length === 0) lines.push('  none');
  for (const finding of plan.findings) {
    const head = `  ${finding.severity.toUpperCase().padEnd(7)} ${finding.code}  `;
    const pad = ' '.repeat(head.length);
    lines.push(head + wrapText(finding.title, WIDTH - head.length, pad).join('\n'));
    if (finding.resources.length > 0) lines.push(`${pad}resources: ${wrapText(finding.resources.join(', '), WIDTH - pad.length - 11, `${pad}           `).join('\n')}`);
    lines.push(`${pad}fix: ${wrapText(finding.remedy, WIDTH - pad.length - 5, `${pad}     `).join('\n')}`);
    if (finding.waived) lines.push(`${pad}WAIVED by ${finding.waived.by} until ${finding.waived.until}: ${wrapText(finding.waived.reason, WIDTH - pad.length - 40, `${pad}  `).join('\n')}`);
  }
  if (plan.rollback?.impossible) {
    lines.push('', ...wrapText(`No steps: ${plan.rollback.impossible.remedy}.`, WIDTH, ''));
    return `${lines.join('\n')}\n`;
  }
  plan.hops.forEach((hop, index) => {
    lines.push('', `HOP ${index + 1}: ${hop.from} → ${hop.to} (${formatMinutes(hop.estimateMinutes)})`);
    hop.steps.forEach((step, n) => {
      const marks = stepMarks(step);
      const head = `  ${String(n + 1).padStart(2)}. `;
      const text = `${step.title}${step.estimateMinutes > 0 ? ` (${formatMinutes(step.estimateMinutes)})` : ''}${marks ? ` ${marks}` : ''}`;
      lines.push(head + wrapText(text, WIDTH - head.length, ' '.repeat(head.length)).join('\n'));
      const pad = ' '.repeat(head.length);
      if (step.gate) lines.push(`${pad}approve: ${step.gate}`);
      if (step.gateOff) lines.push(`${pad}${step.gateOff}`);
      for (const gate of step.conditionalGates ?? []) lines.push(pad + wrapText(`only if ${gate.when}: ${gate.question}`, WIDTH - head.length, `${pad}  `).join('\n'));
    });
  });
  lines.push('', ...wrapText(`Incremental strategy: ${plan.incremental.note}`, WIDTH, '  '));
  lines.push(`Playbook with commands: npx eks-upgrade plan ${plan.cluster} ${plan.rollback ? '--rollback' : `--to ${plan.to}`} --output markdown`);
  return `${lines.join('\n')}\n`;
}
