import type { CommandHandler } from './command-context.js';
import { CommandRejected } from './command-rejected.js';
import { abortCommand } from './abort.js';
import { helpCommand } from './help.js';
import { jobsCommand } from './jobs.js';
import { pauseCommand } from './pause.js';
import { resumeCommand } from './resume.js';
import type { CommandHandlers } from './route-command.js';
import { startCommand } from './start.js';
import { statusCommand } from './status.js';

// Until the read path lands commands/plan.ts (planCommand), `plan` says so instead of failing.
const planNotYetAvailable: CommandHandler = async () => {
  throw new CommandRejected('`plan` is not available in this version of the bot yet; `status <cluster>` shows where the cluster stands.');
};

/** Subcommand → handler, as the Slack app routes them. */
export const COMMAND_HANDLERS: CommandHandlers = {
  help: helpCommand,
  status: statusCommand,
  plan: planNotYetAvailable,
  start: startCommand,
  jobs: jobsCommand,
  pause: pauseCommand,
  resume: resumeCommand,
  abort: abortCommand,
};
