import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
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

/**
 * A refusal on grounds of who or where (not on the command's content): the user may not start this cluster's
 * upgrades, or this channel may not drive it. The router writes it to the cluster's audit trail.
 */
export class RefusedForCluster extends CommandRejected {
  constructor(
    reply: SlackMessage | string,
    readonly cluster: string,
  ) {
    super(reply);
    this.name = 'RefusedForCluster';
  }
}
