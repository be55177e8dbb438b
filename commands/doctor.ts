import { isListed } from '../src/domain/authorize.js';
import { doctorFailed, renderDoctorText } from '../src/report/render-doctor.js';
import type { SlackMessage } from '../src/ports/slack/slack-message.js';
import { chunkLines } from '../src/report/blocks/block-kit-limits.js';
import type { DoctorCheck } from '../src/ports/doctor-check.js';
import { attempt } from './routing/command-failure.js';
import type { CommandHandler } from './routing/command-context.js';
import { escapeAngles } from './routing/command-usage.js';
import { CommandRejected } from './routing/command-rejected.js';
import { readArgs } from './routing/parse-command.js';

/**
 * `/eks-upgrade doctor`: the same checks as `npx eks-upgrade doctor`, answered to the approver alone (the answer
 * names roles, channels and settings). Only approvers of some cluster may ask: it reads every cluster.
 */
export const doctorCommand: CommandHandler = async (context) => {
  const { deps } = context;
  readArgs('doctor', context.args);
  const approver = await Promise.all(deps.config.clusters.map((cluster) => isListed(deps, context.userId, cluster.approvers)));
  if (!approver.some(Boolean)) throw new CommandRejected('Only approvers (a cluster\'s `approvers` in clusters.yaml) may run `doctor`.');
  if (!deps.doctor) throw new CommandRejected('This bot was started without `doctor`.');
  const checks = await attempt('Running doctor', deps.doctor);
  await context.respond(renderDoctorMessage(checks));
};

/** The doctor lines as one preformatted section per ~2900 characters (a section holds 3000). */
export function renderDoctorMessage(checks: DoctorCheck[]): SlackMessage {
  const header = doctorFailed(checks) ? ':x: *doctor* found something to fix:' : ':white_check_mark: *doctor*: nothing to fix.';
  const lines = renderDoctorText(checks).trimEnd().split('\n').map(escapeAngles);
  // 2,900 leaves room for the code fence inside a section's 3,000 characters.
  const sections = chunkLines(lines, 2900);
  return {
    text: `${header}\n${lines.join('\n')}`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: header } }, ...sections.map((text) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text: `\`\`\`${text}\`\`\`` } }))],
  };
}
