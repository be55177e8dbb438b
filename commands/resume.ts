/** `/eks-upgrade resume <job-id | cluster>`: see job-control-command.ts. */

import type { CommandHandler } from './routing/command-context.js';
import { jobControlCommand } from './routing/job-control-command.js';

export const resumeCommand: CommandHandler = jobControlCommand('resume');
