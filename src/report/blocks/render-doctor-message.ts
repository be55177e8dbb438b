import type { DoctorCheck } from '../../ports/doctor-check.js';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import { escapeMrkdwn } from '../format-text.js';
import { doctorFailed, renderDoctorText } from '../render-doctor.js';
import { chunkLines, mrkdwnSection } from './block-kit-limits.js';

/** `doctor`'s answer in Slack: a verdict, then the doctor lines as one preformatted section per ~2900 characters (a section holds 3000). */
export function renderDoctorMessage(checks: DoctorCheck[]): SlackMessage {
  const header = doctorFailed(checks) ? ':x: *doctor* found something to fix:' : ':white_check_mark: *doctor*: nothing to fix.';
  const lines = renderDoctorText(checks).trimEnd().split('\n').map(escapeMrkdwn);
  // 2,900 leaves room for the code fence inside a section's 3,000 characters.
  const sections = chunkLines(lines, 2900);
  return {
    text: `${header}\n${lines.join('\n')}`,
    blocks: [mrkdwnSection(header), ...sections.map((text) => mrkdwnSection(`\`\`\`${text}\`\`\``))],
  };
}
