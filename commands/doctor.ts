import { isListed } from '../src/domain/authorize.js';
import { renderDoctorMessage } from '../src/report/blocks/render-doctor-message.js';
import { attempt } from './routing/command-failure.js';
import type { CommandHandler } from './routing/command-context.js';
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
