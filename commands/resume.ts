/** `/eks-upgrade resume <job-id | cluster>`: see job-control-command.ts. */

import type { CommandHandler } from './command-context.js';
import { jobControlCommand } from './job-control-command.js';

export const resumeCommand: CommandHandler = jobControlCommand('resume');
