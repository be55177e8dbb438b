import type { CommandHandler } from './command-context.js';
import { jobControlCommand } from './job-control-command.js';

/** `/eks-upgrade resume <job-id | cluster>`: see job-control-command.ts. */
export const resumeCommand: CommandHandler = jobControlCommand('resume');
