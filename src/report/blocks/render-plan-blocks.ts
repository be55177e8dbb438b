/**
 * `plan` in Slack: a headline that says whether the upgrade is blocked, the findings grouped by severity (each with
 * its resources and fix), then the steps of each hop with gates (:raised_hand:), manual steps (:wrench:) and steps
 * that can wait for a later hop (:hourglass:). Split over up to `maxMessages` messages; anything beyond says how
 * many findings/steps were left out and names the CLI command that prints them all.
 */

import type { KnownBlock } from '@slack/types';
import { SEVERITY_ORDER, describeCounts, unwaivedErrors, type Finding, type Severity } from '../../ports/finding.js';
import { insightsLine } from '../../planning/plan-context.js';
import { formatMinutes, type PlanStep, type UpgradePlan } from '../../ports/upgrade-plan.js';
import { escapeMrkdwn } from '../format-text.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { context, packLines, paginate, section, type BlockItem } from './slack-pages.js';
import { BLOCK_LIMITS, truncate } from './block-kit-limits.js';

export interface PlanBlocksOptions {
  maxMessages?: number;
  /** Adds a Waive… button to each error and warning (Slack, where waivers can be asked for). */
  waiveButtons?: boolean;
}

/** The Waive… button's action id and value (contract with src/slack/actions/waiver-actions.ts). */
export const WAIVE_ACTION_ID = 'waiver:request';

export function waiveButtonValue(plan: Pick<UpgradePlan, 'cluster'>, finding: Finding): string {
  return waiveValue(plan.cluster, finding.code, finding.resources[0] ?? `cluster/${plan.cluster}`, finding.title);
}

/** Slack caps a button value at 2000 characters: the code, the first resource and a short title are enough. */
export function waiveValue(cluster: string, code: string, resource: string, title: string): string {
  return JSON.stringify({ c: cluster, k: code, r: resource.slice(0, 500), t: title.slice(0, 300) });
}

const e = escapeMrkdwn;
const ICONS: Record<Severity, string> = { error: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' };
const HEADINGS: Record<Severity, string> = { error: 'Blocking', warning: 'Warnings', info: 'For information' };
const MAX_RESOURCES = 8;

export function fullPlanCommand(plan: UpgradePlan): string {
  return `npx eks-upgrade plan ${plan.cluster} ${plan.rollback ? '--rollback' : `--to ${plan.to}`} --output markdown`;
}

function waivedText(finding: Finding): string[] {
  if (!finding.waived) return [];
  const until = finding.waived.until.slice(0, 16).replace('T', ' ');
  return [`:white_check_mark: _Waived by ${finding.waived.by.startsWith('U') || finding.waived.by.startsWith('W') ? `<@${finding.waived.by}>` : e(finding.waived.by)} until ${until} UTC:_ ${e(finding.waived.reason)}`];
}

function findingText(finding: Finding): string {
  const resources = finding.resources.slice(0, MAX_RESOURCES).map((r) => `\`${e(r)}\``).join(', ');
  const more = finding.resources.length > MAX_RESOURCES ? ` and ${finding.resources.length - MAX_RESOURCES} more` : '';
  return [
    `\`${finding.code}\` *${e(finding.title)}*`,
    ...(resources ? [`_Resources:_ ${resources}${more}`] : []),
    `_Fix:_ ${e(finding.remedy)}`,
    ...waivedText(finding),
  ].join('\n');
}

function stepLine(step: PlanStep, n: number): string {
  const marks = [step.gate ? ':raised_hand:' : '', step.manual ? ':wrench:' : '', step.deferrableTo ? `:hourglass: _can wait for ${step.deferrableTo}_` : '']
    .filter(Boolean)
    .join(' ');
  const duration = step.estimateMinutes > 0 ? ` (${formatMinutes(step.estimateMinutes)})` : '';
  const whens = (step.conditionalGates ?? []).map((gate) => e(gate.when));
  const conditional = whens.length ? [`\n   _:raised_hand: only if ${whens.join('; or if ')}_`] : [];
  const off = step.gateOff ? `\n   _${e(step.gateOff)}_` : '';
  return `${n}. ${e(step.title)}${duration}${marks ? ` ${marks}` : ''}${off}${conditional.join('')}`;
}

export function renderPlanMessages(plan: UpgradePlan, options: PlanBlocksOptions = {}): SlackMessage[] {
  const blocking = unwaivedErrors(plan.findings);
  const waived = plan.findings.filter((f) => f.waived).length;
  const verdict = plan.rollback?.impossible
    ? `:no_entry: *A rollback is not possible* (${plan.rollback.impossible.code}, cannot be forced): ${e(plan.rollback.impossible.reason)}`
    : plan.blocking
    ? `:no_entry: *Blocked* by ${blocking.length} error${blocking.length === 1 ? '' : 's'} (${[...new Set(blocking.map((f) => f.code))].join(', ')})`
    : ':white_check_mark: *No blocking findings*';
  const head: BlockItem = {
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `${plan.rollback ? 'Rollback plan' : 'Plan'}: ${plan.cluster} ${plan.from} → ${plan.to}`.slice(0, 150) } },
      section(
        `${verdict} · ${describeCounts(plan.findings)}${waived ? ` (${waived} waived)` : ''} · ${plan.hops.length} hop${plan.hops.length === 1 ? '' : 's'} · ${formatMinutes(plan.estimateMinutes)} · strategies from ${plan.policySource}`,
      ),
      context(`Upgrade ${e(insightsLine(plan.context ?? {}))}${plan.context?.waiverNote ? ` · ${e(plan.context.waiverNote)}` : ''}`),
      ...(plan.guards?.length ? [context(truncate(`Guards watching every step that acts (a breach stops the upgrade): ${e(plan.guards.join('; '))}`, BLOCK_LIMITS.contextText))] : []),
    ],
  };
  const items: BlockItem[] = [head];
  for (const severity of SEVERITY_ORDER) {
    const group = plan.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    items.push({ blocks: [section(`${ICONS[severity]} *${HEADINGS[severity]} (${group.length})*`)] });
    if (severity === 'info') {
      // Infos are one line each: they matter less than the room they would take.
      items.push(...packLines(group.map((f) => `• \`${f.code}\` ${e(f.title)}`), 'findings'));
    } else {
      for (const finding of group) {
        const block = section(findingText(finding));
        if (options.waiveButtons && !finding.waived) {
          (block as { accessory?: unknown }).accessory = {
            type: 'button',
            action_id: WAIVE_ACTION_ID,
            text: { type: 'plain_text', text: 'Waive…' },
            value: waiveButtonValue(plan, finding),
          };
        }
        items.push({ blocks: [block], counts: { findings: 1 } });
      }
    }
  }
  plan.hops.forEach((hop, index) => {
    const lines = hop.steps.map((step, n) => stepLine(step, n + 1));
    const heading = `*Hop ${index + 1}: ${hop.from} → ${hop.to}* (${formatMinutes(hop.estimateMinutes)})`;
    const packed = packLines(lines, 'steps', heading);
    packed[0].blocks.unshift({ type: 'divider' } as KnownBlock);
    items.push(...packed);
  });
  items.push({
    blocks: [
      context(`:hourglass: ${e(plan.incremental.note)}`),
      context(`:raised_hand: needs approval · :wrench: by hand · full playbook with commands: \`${fullPlanCommand(plan)}\``),
    ],
  });
  return paginate(items, {
    maxMessages: options.maxMessages ?? 3,
    text: `${plan.rollback ? 'Rollback plan' : 'Plan'} for ${plan.cluster} ${plan.from} → ${plan.to}: ${plan.blocking ? 'blocked' : 'no blocking findings'} (${describeCounts(plan.findings)})`,
    seeAll: `see the full plan with \`${fullPlanCommand(plan)}\``,
  });
}
