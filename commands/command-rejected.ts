import type { SlackMessage } from '../src/ports/slack-message.js';
import { problemMessage } from './command-usage.js';

/**
 * Thrown by a subcommand that refuses the request (a downgrade, a job that is not there, a click from the wrong
 * person): the router answers the user with `reply` (ephemeral) and counts the command as rejected rather than
 * failed. Like BullMQ's UnrecoverableError, it is an error that steers control flow, not a fault.
 */
export class CommandRejected extends Error {
  readonly code = 'command_rejected';
  readonly reply: SlackMessage;

  constructor(reply: SlackMessage | string) {
    const message = typeof reply === 'string' ? problemMessage(reply) : reply;
    super(message.text);
    this.name = 'CommandRejected';
    this.reply = message;
  }
}
