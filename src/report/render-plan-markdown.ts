/**
 * The plan as a playbook a team pastes into a change ticket (the eksup "create playbook" idea, with this product's
 * findings and hops): what blocks and how to fix it, as checkboxes; then every step numbered per hop, with its
 * gate, who acts, a rough duration and the commands to run by hand. Pure.
 */

import { insightsLine } from '../planning/plan-context.js';
import { SEVERITY_ORDER, describeCounts, type Severity } from '../ports/finding.js';
import { formatMinutes, type UpgradePlan } from '../ports/upgrade-plan.js';

const HEADINGS: Record<Severity, string> = { error: 'Blocking (errors)', warning: 'Warnings', info: 'For information' };

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

export function renderPlanMarkdown(plan: UpgradePlan): string {
  const out: string[] = [];
  out.push(`# ${plan.rollback ? 'Roll back' : 'Upgrade'} ${plan.cluster} from ${plan.from} to ${plan.to}`, '');
  out.push(
    `- **Region:** ${plan.region}`,
    `- **Read at:** ${plan.generatedAt}`,
    `- **Hops:** ${plan.hops.map((h) => `${h.from} → ${h.to}`).join(', ')} (EKS upgrades the control plane one minor at a time)`,
    `- **Rough duration:** ${formatMinutes(plan.estimateMinutes)}, plus the time gates wait for approval`,
    `- **Verdict:** ${plan.blocking ? '**blocked** — fix the errors below first' : 'no blocking findings'} (${describeCounts(plan.findings)})`,
    `- **Skew rule applied:** ${plan.skewRule}`,
    `- **Strategies from:** ${plan.policySource}`,
    ...(plan.guards?.length ? [`- **Guards** (watch every step that acts; a breach stops the upgrade): ${plan.guards.join('; ')}`] : []),
    `- **Upgrade ${insightsLine(plan.context ?? {})}**${plan.context?.waiverNote ? ` — ${plan.context.waiverNote}` : ''}`,
    '',
  );
  if (plan.rollback?.impossible) out.push(`**A rollback is not possible:** ${plan.rollback.impossible.reason} (${plan.rollback.impossible.code}, which cannot be forced). No steps: ${plan.rollback.impossible.remedy}.`, '');
  out.push('## Findings', '');
  if (plan.findings.length === 0) out.push('None.', '');
  for (const severity of SEVERITY_ORDER) {
    const group = plan.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    out.push(`### ${HEADINGS[severity]}`, '');
    for (const finding of group) {
      out.push(`- [ ] **${finding.code}** — ${finding.title}`);
      if (finding.resources.length > 0) out.push(`  - Resources: ${finding.resources.map(code).join(', ')}`);
      out.push(`  - Fix: ${finding.remedy}`);
      if (finding.waived) out.push(`  - Waived by ${finding.waived.by} until ${finding.waived.until}: ${finding.waived.reason}`);
    }
    out.push('');
  }
  out.push('## Steps', '');
  plan.hops.forEach((hop, index) => {
    out.push(`### Hop ${index + 1}: ${hop.from} → ${hop.to} (${formatMinutes(hop.estimateMinutes)})`, '');
    hop.steps.forEach((step, n) => {
      const who = step.manual ? ' — *by hand*' : '';
      const wait = step.deferrableTo ? ` — *can wait for the ${step.deferrableTo} hop (incremental strategy)*` : '';
      out.push(`${n + 1}. **${step.title}**${step.estimateMinutes > 0 ? ` (${formatMinutes(step.estimateMinutes)})` : ''}${who}${wait}`);
      if (step.gate) out.push(`   - Approval: "${step.gate}"`);
      if (step.gateOff) out.push(`   - ${step.gateOff}`);
      for (const gate of step.conditionalGates ?? []) out.push(`   - Approval only if ${gate.when}: "${gate.question}"`);
      for (const detail of step.details) out.push(`   - ${detail}`);
      for (const command of step.commands) out.push(`   - [ ] ${code(command)}`);
    });
    out.push('');
  });
  out.push('## Incremental strategy', '', plan.incremental.note, '');
  out.push('## After the upgrade', '');
  out.push(
    '- [ ] Every node within the skew policy: `kubectl get nodes -o wide`',
    '- [ ] Deployments available and PDBs healthy: `kubectl get deploy,sts,pdb -A`',
    '- [ ] Change the versions in Git / Terraform / eksctl config to match (see the OPS findings)',
    `- [ ] Re-run \`npx eks-upgrade status ${plan.cluster}\``,
    '',
  );
  return out.join('\n');
}
