/** `/eks-upgrade pause <job-id | cluster>`: see job-control-command.ts. */

import type { CommandHandler } from './routing/command-context.js';
import { jobControlCommand } from './routing/job-control-command.js';

export const pauseCommand: CommandHandler = jobControlCommand('pause');
