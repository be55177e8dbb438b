/**
 * `/eks-upgrade` as the Slack adapter sees it: parse now (before the ack), route later. Wired in src/start-bot.ts,
 * so the adapter in src/slack never imports commands/.
 */

import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { SlashCommandReply, SlashCommandRouter } from '../../src/ports/slack/slash-command.js';
import { COMMAND_HANDLERS } from './command-handlers.js';
import { COMMAND } from './command-usage.js';
import { parseCommand, type ParseResult } from './parse-command.js';
import { logOutcome, malformedReply, routeCommand, type CommandHandlers } from './route-command.js';
import { helpFor } from '../help.js';

/** Subcommands that only read and answer: safe to run in a worker process, and to run again should it die. */
const READ_ONLY = new Set(['status', 'plan', 'digest']);

export function createSlashCommandRouter(deps: BotDeps, handlers: CommandHandlers = COMMAND_HANDLERS): SlashCommandRouter {
  return {
    command: COMMAND,
    prepare({ text, userId, channelId, respond, replacing }) {
      const parsed = parseCommand(text);
      const reply = replyFromParse(parsed);
      return {
        subcommand: parsed.ok ? parsed.command.subcommand : (parsed.subcommand ?? 'unknown'),
        readOnly: parsed.ok && READ_ONLY.has(parsed.command.subcommand),
        ...(reply ? { reply } : {}),
        run: async (options) => {
          // Already answered with the ack (help, or a malformed command's usage): nothing to read, run or answer again.
          if (reply && options?.repliedInAck) return logOutcome(deps.logger, parsed, { user: userId, channel: channelId });
          return routeCommand({ parsed, userId, channelId, respond, ...(replacing ? { replacing } : {}) }, deps, handlers);
        },
      };
    },
  };
}

/**
 * The answer parsing alone decides, which the Slack adapter sends with the ack: a malformed command's usage and
 * `help`, which reads nothing. Everything else needs the cluster, the user or AWS.
 */
function replyFromParse(parsed: ParseResult): SlashCommandReply | undefined {
  if (!parsed.ok) return malformedReply(parsed);
  return parsed.command.subcommand === 'help' ? { response_type: 'ephemeral', ...helpFor(parsed.command.args[0]) } : undefined;
}
