/** Subcommand → handler, as the Slack app routes them. */

import { planCommand } from '../plan.js';
import { abortCommand } from '../abort.js';
import { auditCommand } from '../audit.js';
import { helpCommand } from '../help.js';
import { jobsCommand } from '../jobs.js';
import { pauseCommand } from '../pause.js';
import { resumeCommand } from '../resume.js';
import type { CommandHandlers } from './route-command.js';
import { startCommand } from '../start.js';
import { rollbackCommand } from '../rollback.js';
import { statusCommand } from '../status.js';
import { waiversCommand } from '../waivers.js';
import { digestCommand } from '../digest.js';
import { rolloutCommand } from '../rollout.js';
import { rehearseCommand } from '../rehearse.js';
import { doctorCommand } from '../doctor.js';

export const COMMAND_HANDLERS: CommandHandlers = {
  help: helpCommand,
  status: statusCommand,
  plan: planCommand,
  start: startCommand,
  rollback: rollbackCommand,
  jobs: jobsCommand,
  pause: pauseCommand,
  resume: resumeCommand,
  abort: abortCommand,
  audit: auditCommand,
  waivers: waiversCommand,
  digest: digestCommand,
  rollout: rolloutCommand,
  rehearse: rehearseCommand,
  doctor: doctorCommand,
};
