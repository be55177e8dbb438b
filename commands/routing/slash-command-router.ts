/**
 * `/eks-upgrade` as the Slack adapter sees it: parse now (before the ack), route later. Wired in src/start-bot.ts,
 * so the adapter in src/slack never imports commands/.
 */

import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { SlashCommandRouter } from '../../src/ports/slack/slash-command.js';
import { COMMAND_HANDLERS } from './command-handlers.js';
import { COMMAND } from './command-usage.js';
import { parseCommand } from './parse-command.js';
import { routeCommand, type CommandHandlers } from './route-command.js';

/** Subcommands that only read and answer: safe to run in a worker process, and to run again should it die. */
const READ_ONLY = new Set(['status', 'plan', 'digest']);

export function createSlashCommandRouter(deps: BotDeps, handlers: CommandHandlers = COMMAND_HANDLERS): SlashCommandRouter {
  return {
    command: COMMAND,
    prepare({ text, userId, channelId, respond, replacing }) {
      const parsed = parseCommand(text);
      return {
        subcommand: parsed.ok ? parsed.command.subcommand : (parsed.subcommand ?? 'unknown'),
        readOnly: parsed.ok && READ_ONLY.has(parsed.command.subcommand),
        run: () => routeCommand({ parsed, userId, channelId, respond, ...(replacing ? { replacing } : {}) }, deps, handlers),
      };
    },
  };
}
