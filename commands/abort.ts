import type { CommandHandler } from './command-context.js';
import { jobControlCommand } from './job-control-command.js';

/** `/eks-upgrade abort <job-id | cluster>`: see job-control-command.ts. */
export const abortCommand: CommandHandler = jobControlCommand('abort');
